//! The code operators that touch one statement or expression of a function: DropGuard,
//! DropErrorBranch, FlipComparison, ShiftBoundary, SwapReturnValues, SwapCallArgs, DropSideEffect.

use tree_sitter::Node;

use super::{
    delete_range, ends_with_semicolon, inner_expression, is_comment, is_exit, macro_name, mutation,
    own_nodes, quote, statements, FnItem,
};
use crate::edit::Edit;
use crate::operator::{Mutation, Operator};
use crate::syntax::{named_children, Source};

/// Each `if` without `else` in statement position whose body only leaves (`return`, a panic),
/// after `let`s at most, deleted.
pub(crate) fn drop_guard(src: &Source<'_>, f: &FnItem<'_>) -> Vec<Mutation> {
    own_nodes(f.body)
        .into_iter()
        .filter(|n| n.kind() == "if_expression" && n.child_by_field_name("alternative").is_none())
        .filter_map(|n| {
            let stmt = n.parent().filter(|p| p.kind() == "expression_statement")?;
            let body = statements(n.child_by_field_name("consequence")?);
            let (last, before) = body.split_last()?;
            let guard = is_exit(src, *last) && before.iter().all(|s| s.kind() == "let_declaration");
            guard.then(|| {
                let description = format!(
                    "`{}`: the guard `{}` deleted",
                    f.qualified,
                    quote(src.text_of(n))
                );
                let edits = vec![Edit::delete(delete_range(src, stmt))];
                mutation(src, Operator::DropGuard, &f.qualified, description, edits)
            })
        })
        .collect()
}

/// Each error branch (an `Err(..)` match arm, an `if let Err(..)` body, a `map_err` closure) that
/// does something before its final exit or value: that something deleted, the exit or value kept;
/// a branch with no final value (type `()`) emptied.
pub(crate) fn drop_error_branch(src: &Source<'_>, f: &FnItem<'_>) -> Vec<Mutation> {
    own_nodes(f.body)
        .into_iter()
        .filter_map(|n| {
            let block = error_block(src, n)?;
            let stmts = statements(block);
            let (last, before) = stmts.split_last()?;
            let unit = last.kind() == "let_declaration"
                || (last.kind() == "expression_statement" && ends_with_semicolon(src, *last));
            let keeps_last = is_exit(src, *last) || !unit;
            // A `let` that names a value stays: what is kept may use it.
            let (cleanup, lets): (Vec<Node<'_>>, Vec<Node<'_>>) =
                before.iter().partition(|s| !binds_a_name(src, **s));
            if keeps_last && cleanup.is_empty() {
                return None;
            }
            let head = quote(src.text_of(n).split('{').next().unwrap_or(""));
            let (edits, said) = if keeps_last {
                let edits = cleanup
                    .iter()
                    .map(|s| Edit::delete(delete_range(src, *s)))
                    .collect();
                let kept = if lets.is_empty() {
                    ""
                } else {
                    "its `let`s and "
                };
                (
                    edits,
                    format!("reduced to {kept}`{}`", quote(src.text_of(*last))),
                )
            } else if n.kind() != "call_expression" {
                let inside = block.start_byte() + 1..block.end_byte().saturating_sub(1);
                (vec![Edit::new(inside, "")], "emptied".to_string())
            } else {
                return None;
            };
            let description = format!("`{}`: the error branch `{head}` {said}", f.qualified);
            Some(mutation(
                src,
                Operator::DropErrorBranch,
                &f.qualified,
                description,
                edits,
            ))
        })
        .collect()
}

/// A `let` that binds a name (not `let _ = ..`, which only runs its value).
fn binds_a_name(src: &Source<'_>, stmt: Node<'_>) -> bool {
    stmt.kind() == "let_declaration"
        && stmt
            .child_by_field_name("pattern")
            .is_some_and(|p| src.text_of(p) != "_")
}

/// The block of an error branch, if `n` is one: an `Err(..) => { .. }` arm, `if let Err(..) = ..
/// { .. }`, `.map_err(|e| { .. })`.
fn error_block<'t>(src: &Source<'_>, n: Node<'t>) -> Option<Node<'t>> {
    let err_pattern = |pattern: Node<'_>| {
        let t = src.text_of(pattern).trim_start();
        let head = t.split('(').next().unwrap_or("");
        t.contains('(') && (head == "Err" || head.ends_with("::Err"))
    };
    let block = match n.kind() {
        "match_arm" => {
            if !err_pattern(n.child_by_field_name("pattern")?) {
                return None;
            }
            n.child_by_field_name("value")?
        }
        "if_expression" => {
            let cond = n.child_by_field_name("condition")?;
            if cond.kind() != "let_condition" || !err_pattern(cond.child_by_field_name("pattern")?)
            {
                return None;
            }
            n.child_by_field_name("consequence")?
        }
        "call_expression" => {
            let callee = n.child_by_field_name("function")?;
            let field = callee.child_by_field_name("field")?;
            if callee.kind() != "field_expression" || src.text_of(field) != "map_err" {
                return None;
            }
            let args = named_children(n.child_by_field_name("arguments")?);
            let closure = args
                .into_iter()
                .find(|a| a.kind() == "closure_expression")?;
            closure.child_by_field_name("body")?
        }
        _ => return None,
    };
    (block.kind() == "block").then_some(block)
}

/// Each comparison operator reversed (FlipComparison) or its boundary moved (ShiftBoundary).
pub(crate) fn comparisons(src: &Source<'_>, f: &FnItem<'_>, op: Operator) -> Vec<Mutation> {
    own_nodes(f.body)
        .into_iter()
        .filter(|n| n.kind() == "binary_expression")
        .filter_map(|n| {
            let token = n.child_by_field_name("operator")?;
            let from = src.text_of(token);
            let to = match (op, from) {
                (Operator::FlipComparison, "==") => "!=",
                (Operator::FlipComparison, "!=") => "==",
                (Operator::FlipComparison, "<") => ">=",
                (Operator::FlipComparison, ">=") => "<",
                (Operator::FlipComparison, ">") => "<=",
                (Operator::FlipComparison, "<=") => ">",
                (Operator::ShiftBoundary, "<") => "<=",
                (Operator::ShiftBoundary, "<=") => "<",
                (Operator::ShiftBoundary, ">") => ">=",
                (Operator::ShiftBoundary, ">=") => ">",
                _ => return None,
            };
            let before = src.text_of(n);
            let after = format!(
                "{}{to}{}",
                &src.text[n.start_byte()..token.start_byte()],
                &src.text[token.end_byte()..n.end_byte()]
            );
            let description = format!(
                "`{}`: `{}` became `{}`",
                f.qualified,
                quote(before),
                quote(&after)
            );
            let edits = vec![Edit::new(token.byte_range(), to)];
            Some(mutation(src, op, &f.qualified, description, edits))
        })
        .collect()
}

/// Each returned tuple or array literal (by `return` or as the body's value, also inside `Ok(..)`
/// or `Some(..)`) with two different first elements: those two swapped.
pub(crate) fn swap_return_values(src: &Source<'_>, f: &FnItem<'_>) -> Vec<Mutation> {
    let tail = statements(f.body)
        .last()
        .copied()
        .filter(|t| t.kind() != "expression_statement" && t.kind() != "let_declaration");
    let returned = own_nodes(f.body)
        .into_iter()
        .filter(|n| n.kind() == "return_expression")
        .filter_map(|n| n.named_child(0));
    tail.into_iter()
        .chain(returned)
        .collect::<Vec<_>>()
        .into_iter()
        .filter_map(|value| {
            let literal = unwrap_ok_some(src, value);
            if !matches!(literal.kind(), "tuple_expression" | "array_expression")
                || literal
                    .children(&mut literal.walk())
                    .any(|c| c.kind() == ";")
            {
                return None;
            }
            let elems: Vec<Node<'_>> = named_children(literal)
                .into_iter()
                .filter(|e| !is_comment(*e) && e.kind() != "attribute_item")
                .collect();
            let [a, b, ..] = elems.as_slice() else {
                return None;
            };
            let (ta, tb) = (src.text_of(*a), src.text_of(*b));
            if ta == tb {
                return None;
            }
            let description = format!(
                "`{}`: `{ta}` and `{tb}` swapped in the returned `{}`",
                f.qualified,
                quote(src.text_of(literal))
            );
            let edits = vec![Edit::new(a.byte_range(), tb), Edit::new(b.byte_range(), ta)];
            Some(mutation(
                src,
                Operator::SwapReturnValues,
                &f.qualified,
                description,
                edits,
            ))
        })
        .collect()
}

/// The single argument of `Ok(..)` / `Some(..)`, else the node itself.
fn unwrap_ok_some<'t>(src: &Source<'_>, n: Node<'t>) -> Node<'t> {
    if n.kind() != "call_expression" {
        return n;
    }
    let callee = n.child_by_field_name("function").map(|c| src.text_of(c));
    let args: Vec<Node<'t>> = n
        .child_by_field_name("arguments")
        .map(named_children)
        .unwrap_or_default();
    match (callee, args.as_slice()) {
        (Some("Ok" | "Some"), [only]) => *only,
        _ => n,
    }
}

/// Each call with two different, simple first arguments (no closure among its arguments): those
/// two swapped.
pub(crate) fn swap_call_args(src: &Source<'_>, f: &FnItem<'_>) -> Vec<Mutation> {
    own_nodes(f.body)
        .into_iter()
        .filter(|n| n.kind() == "call_expression")
        .filter_map(|n| {
            let args: Vec<Node<'_>> = named_children(n.child_by_field_name("arguments")?)
                .into_iter()
                .filter(|a| !is_comment(*a))
                .collect();
            let complex = |a: &Node<'_>| {
                matches!(
                    a.kind(),
                    "closure_expression"
                        | "block"
                        | "if_expression"
                        | "match_expression"
                        | "loop_expression"
                        | "async_block"
                        | "attribute_item"
                )
            };
            if args.len() < 2 || args.iter().any(complex) {
                return None;
            }
            let (a, b) = (args[0], args[1]);
            let (ta, tb) = (src.text_of(a), src.text_of(b));
            if ta == tb {
                return None;
            }
            let description = format!(
                "`{}`: the arguments `{}` and `{}` of `{}` swapped",
                f.qualified,
                quote(ta),
                quote(tb),
                quote(src.text_of(n))
            );
            let edits = vec![Edit::new(a.byte_range(), tb), Edit::new(b.byte_range(), ta)];
            Some(mutation(
                src,
                Operator::SwapCallArgs,
                &f.qualified,
                description,
                edits,
            ))
        })
        .collect()
}

/// Macros whose statement is not a side effect to drop: assertions and panics.
const NOT_EFFECTS: [&str; 11] = [
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "panic",
    "unreachable",
    "todo",
    "unimplemented",
    "bail",
];

/// Each statement that is only a call (also `call()?`, `call().await`), a macro other than an
/// assertion or panic, a compound assignment, or an assignment to a field or an element: deleted.
pub(crate) fn drop_side_effect(src: &Source<'_>, f: &FnItem<'_>) -> Vec<Mutation> {
    own_nodes(f.body)
        .into_iter()
        .filter(|n| n.kind() == "expression_statement" && ends_with_semicolon(src, *n))
        .filter(|n| n.parent().is_some_and(|p| p.kind() == "block"))
        .filter(|n| is_side_effect(src, inner_expression(*n)))
        .map(|n| {
            let description = format!(
                "`{}`: the statement `{}` deleted",
                f.qualified,
                quote(src.text_of(n))
            );
            let edits = vec![Edit::delete(delete_range(src, n))];
            mutation(
                src,
                Operator::DropSideEffect,
                &f.qualified,
                description,
                edits,
            )
        })
        .collect()
}

fn is_side_effect(src: &Source<'_>, e: Node<'_>) -> bool {
    match e.kind() {
        "call_expression" | "compound_assignment_expr" => true,
        "try_expression" | "await_expression" => e
            .named_child(0)
            .is_some_and(|inner| is_side_effect(src, inner)),
        "macro_invocation" => macro_name(src, e).is_some_and(|m| !NOT_EFFECTS.contains(&m)),
        "assignment_expression" => e.child_by_field_name("left").is_some_and(|l| {
            matches!(l.kind(), "field_expression" | "index_expression")
                || (l.kind() == "unary_expression" && src.text_of(l).starts_with('*'))
        }),
        _ => false,
    }
}
