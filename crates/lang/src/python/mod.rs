//! Python (pytest): the functions a source defines, the tests pytest would collect from it, where
//! each mutation operator applies and the edit it makes, and cited lines neutralized.
//!
//! Parts: `tree` reads the syntax tree, `edits` makes edits that keep the file valid, `collect`
//! finds tests and their marks, `code` the code operators' sites, `checks` the test operators'
//! sites, `neutral` neutralization.

mod checks;
mod code;
mod collect;
mod edits;
mod neutral;
mod tree;

#[cfg(test)]
mod tests;

use crate::operator::{Mutation, Operator, OperatorFamily};
use crate::syntax::{Function, Source, Test};

/// Every function and method definition, nested ones included, in source order.
pub(crate) fn functions(src: &Source<'_>) -> Vec<Function> {
    tree::defs(src)
        .into_iter()
        .map(|d| Function {
            body: body_range(&d),
            lines: d.lines(src),
            name: d.name,
            qualified: d.qualified,
        })
        .collect()
}

/// Every test pytest would collect, in source order, with its status.
pub(crate) fn tests(src: &Source<'_>) -> Vec<Test> {
    collect::collect(src)
        .into_iter()
        .map(|t| Test {
            lines: t.def.lines(src),
            body: body_range(&t.def),
            name: t.name,
            status: t.status,
        })
        .collect()
}

/// Every site of `op`: code operators outside test code, test operators in running tests.
pub(crate) fn mutations(src: &Source<'_>, op: Operator) -> Vec<Mutation> {
    match op.family() {
        OperatorFamily::Code => code::mutations(src, op),
        OperatorFamily::Test => checks::mutations(src, op),
    }
}

/// `lines` with their behaviour removed (see [`crate::neutralize`]).
pub(crate) fn neutralize(src: &Source<'_>, lines: [u32; 2]) -> Option<Mutation> {
    neutral::neutralize(src, lines)
}

/// The function `qualified` with a body that does nothing and raises nothing (see
/// [`crate::quiet`]).
pub(crate) fn quiet(src: &Source<'_>, qualified: &str) -> Option<Mutation> {
    neutral::quiet(src, qualified)
}

/// The bytes of a definition's body statements (its docstring included).
fn body_range(def: &tree::Def<'_>) -> std::ops::Range<usize> {
    let stmts = tree::statements(def.body);
    match (stmts.first(), stmts.last()) {
        (Some(first), Some(last)) => first.start_byte()..last.end_byte(),
        _ => def.body.byte_range(),
    }
}
