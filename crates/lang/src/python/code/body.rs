//! Operators on a function's body as a whole: stubbed with a not-implemented failure or a quiet
//! default, or cut short by a `return` before its last statement.

use tree_sitter::Node;

use super::mutation;
use crate::edit::Edit;
use crate::operator::{Mutation, Operator};
use crate::python::edits::{insert_line_above, replace_body};
use crate::python::tree::{callee_path, expression_of, own_nodes, pick, quote, Def};
use crate::syntax::Source;

/// The not-implemented failures agents write, one chosen per site.
pub(in crate::python) const STUB_RAISE: [&str; 4] = [
    "raise NotImplementedError",
    "raise NotImplementedError(\"TODO\")",
    "raise RuntimeError(\"not implemented yet\")",
    "raise NotImplementedError(\"implement me\")",
];

/// The quiet defaults agents write, one chosen per site.
pub(super) const STUB_DEFAULT: [&str; 3] = ["pass", "return None", "..."];

/// The function's body (after its docstring) replaced by one of `forms`, chosen by its name;
/// `None` when the body already is only a stub.
pub(super) fn stub(
    src: &Source<'_>,
    def: &Def<'_>,
    op: Operator,
    forms: &[&str],
) -> Option<Mutation> {
    if is_stub(src, def) {
        return None;
    }
    let mut form = *forms.get(pick(&def.qualified, forms.len()))?;
    if form.starts_with("return ") && def.is_async() && yields(def) {
        // `return <value>` is a syntax error in an async generator.
        form = "pass";
    }
    let edit = replace_body(def.body, form)?;
    let description = format!("`{}`: body replaced by `{form}`", def.qualified);
    Some(mutation(src, op, def, description, vec![edit]))
}

/// A bare `return` inserted before the last statement of a function of two statements or more
/// (its docstring not counted), unless that statement already returns nothing.
pub(super) fn return_early(src: &Source<'_>, def: &Def<'_>) -> Option<Mutation> {
    let stmts = def.statements();
    if stmts.len() < 2 {
        return None;
    }
    let last = *stmts.last()?;
    if last.kind() == "return_statement" && last.named_child(0).is_none_or(|v| v.kind() == "none") {
        // Returning early before `return None` changes nothing.
        return None;
    }
    let at = last.start_byte();
    let edit = if src.text[src.line_start(at)..at].trim().is_empty() {
        insert_line_above(src, at, "return")
    } else {
        Edit::insert(at, "return; ")
    };
    let description = format!(
        "`{}`: `return` inserted before its last statement `{}`",
        def.qualified,
        quote(src.text_of(last))
    );
    Some(mutation(
        src,
        Operator::ReturnEarly,
        def,
        description,
        vec![edit],
    ))
}

/// Whether a function's body (after its docstring) is already only a stub: nothing, `pass`,
/// `...`, a bare `return` or `return None`, or a not-implemented `raise`.
pub(in crate::python) fn is_stub(src: &Source<'_>, def: &Def<'_>) -> bool {
    let stmts = def.statements();
    match stmts.as_slice() {
        [] => true,
        [only] => is_stub_statement(src, *only),
        _ => false,
    }
}

fn is_stub_statement(src: &Source<'_>, stmt: Node<'_>) -> bool {
    match stmt.kind() {
        "pass_statement" => true,
        "expression_statement" => expression_of(stmt).is_some_and(|e| e.kind() == "ellipsis"),
        "return_statement" => stmt.named_child(0).is_none_or(|v| v.kind() == "none"),
        "raise_statement" => stmt.named_child(0).is_some_and(|e| {
            let callee = callee_path(src, e).unwrap_or_default();
            callee == "NotImplementedError"
                || (callee == "RuntimeError"
                    && src.text_of(e).to_lowercase().contains("not implemented"))
        }),
        _ => false,
    }
}

/// Whether the function's own code yields (it is a generator).
pub(in crate::python) fn yields(def: &Def<'_>) -> bool {
    own_nodes(def.body).iter().any(|n| n.kind() == "yield")
}
