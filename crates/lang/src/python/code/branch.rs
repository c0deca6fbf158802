//! Operators on a function's statements: a guard deleted, an error branch emptied of its
//! cleanup, a call made only for its side effect deleted.

use tree_sitter::Node;

use super::mutation;
use crate::edit::Edit;
use crate::operator::{Mutation, Operator};
use crate::python::edits::delete_statements;
use crate::python::tree::{call_of_stmt, callee_path, own_nodes, quote, statements, Def};
use crate::syntax::Source;

/// Every guard of the function deleted, one mutation each: an `if` without `elif` or `else`
/// whose body ends in `raise` or `return` after nothing but calls (a log line, say).
pub(super) fn guards(src: &Source<'_>, def: &Def<'_>) -> Vec<Mutation> {
    own_nodes(def.body)
        .into_iter()
        .filter(|n| n.kind() == "if_statement" && is_guard(*n))
        .map(|n| {
            let description = format!(
                "`{}`: the guard `{}` deleted",
                def.qualified,
                quote(src.text_of(n))
            );
            let edits = delete_statements(src, &[n]);
            mutation(src, Operator::DropGuard, def, description, edits)
        })
        .collect()
}

fn is_guard(node: Node<'_>) -> bool {
    if node.child_by_field_name("alternative").is_some() {
        return false;
    }
    let Some(body) = node.child_by_field_name("consequence") else {
        return false;
    };
    let stmts = statements(body);
    let Some((last, rest)) = stmts.split_last() else {
        return false;
    };
    matches!(last.kind(), "raise_statement" | "return_statement")
        && rest.iter().all(|s| call_of_stmt(*s).is_some())
}

/// Every `except` clause of the function that does something, one mutation each: when it ends
/// by raising, everything before the `raise` deleted; otherwise its body replaced by `pass`.
pub(super) fn error_branches(src: &Source<'_>, def: &Def<'_>) -> Vec<Mutation> {
    let mut out = Vec::new();
    for clause in own_nodes(def.body) {
        if clause.kind() != "except_clause" {
            continue;
        }
        let Some(body) = crate::syntax::named_children(clause)
            .into_iter()
            .find(|c| c.kind() == "block")
        else {
            continue;
        };
        let header = src.text[clause.start_byte()..body.start_byte()].trim();
        let header = quote(header.strip_suffix(':').unwrap_or(header));
        let stmts = statements(body);
        let (Some(first), Some(last)) = (stmts.first(), stmts.last()) else {
            continue;
        };
        let (edits, description) = if last.kind() == "raise_statement" {
            if stmts.len() < 2 {
                continue;
            }
            let cut = &stmts[..stmts.len() - 1];
            (
                delete_statements(src, cut),
                format!(
                    "`{}`: the `{header}` branch reduced to its re-raise (`{}` deleted)",
                    def.qualified,
                    quote(&src.text[cut[0].start_byte()..cut[cut.len() - 1].end_byte()])
                ),
            )
        } else {
            if stmts.len() == 1 && first.kind() == "pass_statement" {
                continue;
            }
            (
                vec![Edit::new(first.start_byte()..last.end_byte(), "pass")],
                format!(
                    "`{}`: the `{header}` branch emptied to `pass` (`{}` deleted)",
                    def.qualified,
                    quote(&src.text[first.start_byte()..last.end_byte()])
                ),
            )
        };
        out.push(mutation(
            src,
            Operator::DropErrorBranch,
            def,
            description,
            edits,
        ));
    }
    out
}

/// Every statement of the function that is only a call (awaited or not, `print` included, an
/// assertion helper not), deleted, one mutation each.
pub(super) fn side_effects(src: &Source<'_>, def: &Def<'_>) -> Vec<Mutation> {
    own_nodes(def.body)
        .into_iter()
        .filter(|n| {
            call_of_stmt(*n).is_some_and(|c| {
                let callee = callee_path(src, c).unwrap_or_default();
                !callee.starts_with("self.assert") && !callee.starts_with("pytest.")
            })
        })
        .map(|n| {
            let description = format!(
                "`{}`: the call `{}` deleted",
                def.qualified,
                quote(src.text_of(n))
            );
            let edits = delete_statements(src, &[n]);
            mutation(src, Operator::DropSideEffect, def, description, edits)
        })
        .collect()
}
