//! Rust (libtest, `cargo test`): the functions a file defines, the tests libtest would collect, the
//! sites of every mutation operator, and an obligation's lines neutralized.
//!
//! `items` walks the items (modules, impls, functions) once; the operators are split by what they
//! touch: whole bodies (`stubs`), statements and expressions of code (`code_sites`), tests
//! (`test_ops`); `neutralize` serves the reference gate.

mod code_sites;
mod items;
mod neutralize;
mod stubs;
mod test_ops;
#[cfg(test)]
mod tests;

use std::ops::Range;

use tree_sitter::Node;

use crate::edit::Edit;
use crate::operator::{Mutation, Operator, OperatorFamily};
use crate::syntax::{named_children, Function, Source, Test};

pub(crate) use items::FnItem;

/// Every function item, nested ones included, in source order.
pub(crate) fn functions(src: &Source<'_>) -> Vec<Function> {
    items::fn_items(src)
        .iter()
        .map(|f| Function {
            name: f.name.clone(),
            qualified: f.qualified.clone(),
            lines: f.lines(src),
            body: body_range(src, f.body),
        })
        .collect()
}

/// The tests libtest would collect, with whether `#[ignore]` skips them.
pub(crate) fn tests(src: &Source<'_>) -> Vec<Test> {
    items::collected(src).into_iter().map(|(_, t)| t).collect()
}

/// Every site of `op`: code operators in functions that are not test code, test operators in
/// live tests.
pub(crate) fn mutations(src: &Source<'_>, op: Operator) -> Vec<Mutation> {
    debug_assert_eq!(src.lang, crate::Lang::Rust, "a Rust source");
    match op.family() {
        OperatorFamily::Code => {
            let fns = items::fn_items(src);
            let code: Vec<&FnItem<'_>> = fns.iter().filter(|f| !f.in_test && !f.never).collect();
            code.iter()
                .flat_map(|f| code_mutations(src, f, op))
                .collect()
        }
        OperatorFamily::Test => items::collected(src)
            .iter()
            .filter(|(_, t)| t.status == crate::TestStatus::Live)
            .flat_map(|(f, t)| test_ops::mutations(src, f, &t.name, op))
            .collect(),
    }
}

/// See [`crate::neutralize`] and `neutralize.rs`.
pub(crate) fn neutralize(src: &Source<'_>, lines: [u32; 2]) -> Option<Mutation> {
    neutralize::neutralize(src, lines)
}

/// The sites of a code operator in one (non-test) function.
fn code_mutations(src: &Source<'_>, f: &FnItem<'_>, op: Operator) -> Vec<Mutation> {
    use Operator::*;
    match op {
        StubRaise => stubs::stub_raise(src, f).into_iter().collect(),
        StubDefault => stubs::stub_default(src, f).into_iter().collect(),
        ReturnEarly => stubs::return_early(src, f).into_iter().collect(),
        DropGuard => code_sites::drop_guard(src, f),
        DropErrorBranch => code_sites::drop_error_branch(src, f),
        FlipComparison | ShiftBoundary => code_sites::comparisons(src, f, op),
        SwapReturnValues => code_sites::swap_return_values(src, f),
        SwapCallArgs => code_sites::swap_call_args(src, f),
        DropSideEffect => code_sites::drop_side_effect(src, f),
        _ => Vec::new(),
    }
}

/// A mutation of one function or test, `lines` spanning the edits' original lines.
fn mutation(
    src: &Source<'_>,
    op: Operator,
    function: &str,
    description: String,
    edits: Vec<Edit>,
) -> Mutation {
    let first = edits.iter().map(|e| e.range.start).min().unwrap_or(0);
    let last = edits.iter().map(|e| e.range.end).max().unwrap_or(0);
    // An edit that ends just past a newline touches the line before it, not the next one.
    let last_byte = if last > first { last - 1 } else { last };
    Mutation {
        operator: op,
        site: function.to_string(),
        description,
        function: function.to_string(),
        lines: [line_of(src, first), line_of(src, last_byte)],
        edits,
    }
}

/// The 1-based line holding `byte`.
fn line_of(src: &Source<'_>, byte: usize) -> u32 {
    let byte = byte.min(src.text.len());
    src.text.as_bytes()[..byte]
        .iter()
        .filter(|b| **b == b'\n')
        .count() as u32
        + 1
}

/// Whether a node is a comment.
fn is_comment(node: Node<'_>) -> bool {
    matches!(node.kind(), "line_comment" | "block_comment")
}

/// The statements of a block (and its tail expression), comments and attributes left out.
fn statements<'t>(block: Node<'t>) -> Vec<Node<'t>> {
    named_children(block)
        .into_iter()
        .filter(|n| !is_comment(*n) && n.kind() != "attribute_item")
        .collect()
}

/// The bytes between a block's braces, surrounding whitespace trimmed (an empty block: the empty
/// range just inside its `{`).
fn body_range(src: &Source<'_>, block: Node<'_>) -> Range<usize> {
    let (open, close) = (block.start_byte() + 1, block.end_byte().saturating_sub(1));
    if close <= open {
        return open..open;
    }
    let inner = &src.text[open..close];
    let lead = inner.len() - inner.trim_start().len();
    let trail = inner.len() - inner.trim_end().len();
    if lead == inner.len() {
        return open..open;
    }
    open + lead..close - trail
}

/// The bytes that delete a statement: its whole lines when nothing else is on them, else the node
/// and the spaces after it.
fn delete_range(src: &Source<'_>, node: Node<'_>) -> Range<usize> {
    let (start, end) = (node.start_byte(), node.end_byte());
    let line_start = src.line_start(start);
    let line_end = src.line_end(end);
    let alone_before = src.text[line_start..start].trim().is_empty();
    let alone_after = src.text[end..line_end].trim().is_empty();
    if alone_before && alone_after {
        return line_start..line_end;
    }
    let rest = &src.text[end..line_end];
    let spaces = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    start..end + spaces
}

/// The last segment of a macro invocation's name (`assert_eq` for `pretty_assertions::assert_eq!`).
fn macro_name<'a>(src: &Source<'a>, node: Node<'_>) -> Option<&'a str> {
    if node.kind() != "macro_invocation" {
        return None;
    }
    let path = src.text_of(node.child_by_field_name("macro")?);
    Some(path.rsplit("::").next().unwrap_or(path))
}

/// The expression a statement holds (the statement itself when it is a bare tail expression).
fn inner_expression(node: Node<'_>) -> Node<'_> {
    if node.kind() == "expression_statement" {
        node.named_child(0).unwrap_or(node)
    } else {
        node
    }
}

/// Whether an expression statement ends in `;` (a block whose last statement does has type `()`).
fn ends_with_semicolon(src: &Source<'_>, node: Node<'_>) -> bool {
    src.text_of(node).trim_end().ends_with(';')
}

/// Macros that end the program's path: a panic, or anyhow's early return.
const EXIT_MACROS: [&str; 5] = ["panic", "unreachable", "todo", "unimplemented", "bail"];

/// Whether a statement leaves the function or loop: `return`, `break`, `continue`, a panic.
fn is_exit(src: &Source<'_>, stmt: Node<'_>) -> bool {
    let e = inner_expression(stmt);
    match e.kind() {
        "return_expression" | "break_expression" | "continue_expression" => true,
        "macro_invocation" => macro_name(src, e).is_some_and(|m| EXIT_MACROS.contains(&m)),
        _ => false,
    }
}

/// Code quoted in a description: whitespace runs collapsed, cut at about 60 characters.
fn quote(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= 60 {
        return flat;
    }
    let cut: String = flat.chars().take(57).collect();
    format!("{cut}...")
}

/// A deterministic choice among `n` forms for a site, so a gate cannot learn one marker.
fn pick(key: &str, n: usize) -> usize {
    key.bytes().map(usize::from).sum::<usize>() % n.max(1)
}

/// Every node under `node` that belongs to it rather than to an item nested in it (a nested
/// function is its own site), depth first in source order; macro arguments are not descended.
fn own_nodes<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        out.push(n);
        let mut kids = named_children(n);
        kids.retain(|k| !items::is_item(*k) && k.kind() != "token_tree");
        stack.extend(kids.into_iter().rev());
    }
    out
}

/// The named children of `node` of one kind.
fn named_children_of_kind<'t>(node: Node<'t>, kind: &str) -> Vec<Node<'t>> {
    named_children(node)
        .into_iter()
        .filter(|n| n.kind() == kind)
        .collect()
}
