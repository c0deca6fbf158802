//! JavaScript (`node:test`, run by `node --test`): the functions a file defines, the tests
//! `node:test` would collect from it, every site of the mutation operators, and an obligation's
//! lines neutralized.
//!
//! - `nodes.rs`: small helpers over tree-sitter nodes (children, call chains, statement removal);
//! - `defs.rs`: function and method definitions and their qualified names;
//! - `collect.rs`: `test` / `it` / `describe` / `suite` calls, their names, statuses and regions;
//! - `code.rs`: the code operators (outside tests);
//! - `asserts.rs`: assertion statements, negative ones, and trivial ones;
//! - `testops.rs`: the test operators (inside collected, live tests);
//! - `neutralize.rs`: an obligation's lines with their behaviour removed.

mod asserts;
mod code;
mod collect;
mod defs;
mod neutralize;
mod nodes;
mod testops;

#[cfg(test)]
mod tests;

use crate::operator::{Mutation, Operator, OperatorFamily};
use crate::syntax::{Function, Lang, Source, Test};

pub(crate) use neutralize::neutralize;

/// Every function and method `src` defines, in source order.
pub(crate) fn functions(src: &Source<'_>) -> Vec<Function> {
    debug_assert_eq!(src.lang, Lang::JavaScript);
    defs::find(src).into_iter().map(|d| d.function).collect()
}

/// Every test `node:test` would collect from `src`, in source order.
pub(crate) fn tests(src: &Source<'_>) -> Vec<Test> {
    debug_assert_eq!(src.lang, Lang::JavaScript);
    collect::find(src)
        .tests
        .into_iter()
        .map(|t| t.test)
        .collect()
}

/// Every site of `op` in `src`, in source order.
pub(crate) fn mutations(src: &Source<'_>, op: Operator) -> Vec<Mutation> {
    debug_assert_eq!(src.lang, Lang::JavaScript);
    let collected = collect::find(src);
    match op.family() {
        // A file that holds tests (or imports `node:test`) is test code through and through:
        // its top-level helpers are test helpers.
        OperatorFamily::Code
            if !collected.regions.is_empty() || collect::imports_node_test(src) =>
        {
            Vec::new()
        }
        OperatorFamily::Code => {
            let fns: Vec<defs::Def<'_>> = defs::find(src)
                .into_iter()
                .filter(|d| !collected.in_region(d.node))
                .collect();
            code::mutations(src, op, &fns, &collected)
        }
        OperatorFamily::Test => testops::mutations(src, op, &collected),
    }
}
