//! Operators on a function's expressions: comparisons flipped or their boundary shifted, the
//! first two values of a returned tuple or list swapped, a call's first two arguments swapped.

use tree_sitter::Node;

use super::mutation;
use crate::edit::{apply, Edit};
use crate::operator::{Mutation, Operator};
use crate::python::tree::{own_nodes, quote, Def};
use crate::syntax::{named_children, Source};

/// The operator `op` turns `token` into: `FlipComparison` reverses it, `ShiftBoundary` moves an
/// ordering's boundary by one.
fn replacement(op: Operator, token: &str) -> Option<&'static str> {
    let flip = [
        ("==", "!="),
        ("<", ">="),
        (">", "<="),
        ("is", "is not"),
        ("in", "not in"),
    ];
    let shift = [("<", "<="), (">", ">=")];
    let pairs: &[(&str, &str)] = match op {
        Operator::FlipComparison => &flip,
        Operator::ShiftBoundary => &shift,
        _ => return None,
    };
    pairs.iter().find_map(|(a, b)| {
        if *a == token {
            Some(*b)
        } else if *b == token {
            Some(*a)
        } else {
            None
        }
    })
}

/// Every comparison operator of the function that `op` changes, one mutation each (a chained
/// comparison has one per operator).
pub(super) fn comparisons(src: &Source<'_>, def: &Def<'_>, op: Operator) -> Vec<Mutation> {
    let mut out = Vec::new();
    for cmp in own_nodes(def.body) {
        if cmp.kind() != "comparison_operator" {
            continue;
        }
        let mut cursor = cmp.walk();
        let tokens: Vec<Node<'_>> = cmp
            .children_by_field_name("operators", &mut cursor)
            .collect();
        for token in tokens {
            let Some(new) = replacement(op, token.kind()) else {
                continue;
            };
            let edit = Edit::new(token.byte_range(), new);
            let shifted =
                token.start_byte() - cmp.start_byte()..token.end_byte() - cmp.start_byte();
            let after = apply(src.text_of(cmp), &[Edit::new(shifted, new)]);
            let verb = match op {
                Operator::ShiftBoundary => "shifted",
                _ => "flipped",
            };
            let description = format!(
                "`{}`: `{}` {verb} to `{}`",
                def.qualified,
                quote(src.text_of(cmp)),
                quote(&after)
            );
            out.push(mutation(src, op, def, description, vec![edit]));
        }
    }
    out
}

/// Every `return` of a tuple or list literal whose first two values differ, with those two
/// swapped.
pub(super) fn returns(src: &Source<'_>, def: &Def<'_>) -> Vec<Mutation> {
    let mut out = Vec::new();
    for ret in own_nodes(def.body) {
        if ret.kind() != "return_statement" {
            continue;
        }
        let Some(value) = ret.named_child(0) else {
            continue;
        };
        if !matches!(value.kind(), "expression_list" | "tuple" | "list") {
            continue;
        }
        let items = elements(value);
        let Some(edits) = swap(src, &items) else {
            continue;
        };
        let description = format!(
            "`{}`: `{}` and `{}` swapped in `{}`",
            def.qualified,
            quote(src.text_of(items[0])),
            quote(src.text_of(items[1])),
            quote(src.text_of(ret))
        );
        out.push(mutation(
            src,
            Operator::SwapReturnValues,
            def,
            description,
            edits,
        ));
    }
    out
}

/// Every call whose first two arguments are positional, simple and different, with those two
/// swapped; calls with `*args` or `**kwargs` are left alone (positions are unknown there).
pub(super) fn calls(src: &Source<'_>, def: &Def<'_>) -> Vec<Mutation> {
    let mut out = Vec::new();
    for call in own_nodes(def.body) {
        if call.kind() != "call" {
            continue;
        }
        let Some(args) = call
            .child_by_field_name("arguments")
            .filter(|a| a.kind() == "argument_list")
        else {
            continue;
        };
        let items = elements(args);
        let spread = items.iter().any(|a| {
            matches!(a.kind(), "list_splat" | "dictionary_splat")
                || (a.kind() == "parenthesized_expression"
                    && a.named_child(0).is_some_and(|c| c.kind() == "list_splat"))
        });
        let simple = items.len() >= 2
            && items[..2]
                .iter()
                .all(|a| !matches!(a.kind(), "keyword_argument" | "lambda"));
        if spread || !simple {
            continue;
        }
        let Some(edits) = swap(src, &items) else {
            continue;
        };
        let callee = call
            .child_by_field_name("function")
            .map_or("", |f| src.text_of(f));
        let description = format!(
            "`{}`: the arguments `{}` and `{}` of `{}(...)` swapped",
            def.qualified,
            quote(src.text_of(items[0])),
            quote(src.text_of(items[1])),
            quote(callee)
        );
        out.push(mutation(
            src,
            Operator::SwapCallArgs,
            def,
            description,
            edits,
        ));
    }
    out
}

/// The elements of a literal or argument list (comments left out).
fn elements(node: Node<'_>) -> Vec<Node<'_>> {
    named_children(node)
        .into_iter()
        .filter(|c| c.kind() != "comment")
        .collect()
}

/// The edits swapping the first two of `items`, when there are two and they differ as written.
fn swap(src: &Source<'_>, items: &[Node<'_>]) -> Option<Vec<Edit>> {
    let (a, b) = (items.first()?, items.get(1)?);
    let (ta, tb) = (src.text_of(*a), src.text_of(*b));
    (ta != tb).then(|| vec![Edit::new(a.byte_range(), tb), Edit::new(b.byte_range(), ta)])
}
