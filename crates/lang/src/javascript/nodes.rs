//! Small helpers over the JavaScript tree: children without comments, call chains,
//! statement removal, and the lines and quotes a mutation reports.

use std::ops::Range;

use tree_sitter::Node;

use crate::edit::Edit;
use crate::syntax::Source;

/// The named children of `node` that are not comments (comments are the grammar's extras).
pub(super) fn kids<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    crate::syntax::named_children(node)
        .into_iter()
        .filter(|n| !n.is_extra())
        .collect()
}

/// Statement kinds: what a block holds and a removal deletes whole.
pub(super) fn is_statement(kind: &str) -> bool {
    matches!(
        kind,
        "expression_statement"
            | "lexical_declaration"
            | "variable_declaration"
            | "if_statement"
            | "for_statement"
            | "for_in_statement"
            | "while_statement"
            | "do_statement"
            | "try_statement"
            | "return_statement"
            | "throw_statement"
            | "break_statement"
            | "continue_statement"
            | "switch_statement"
            | "labeled_statement"
            | "empty_statement"
            | "debugger_statement"
            | "with_statement"
            | "function_declaration"
            | "generator_function_declaration"
            | "class_declaration"
            | "export_statement"
            | "import_statement"
    )
}

/// Whether a statement whose parent is `parent` can be deleted outright (a block holds it);
/// otherwise it is the body of an `if`, `else` or loop and becomes `{}`.
fn in_block(parent: Option<Node<'_>>) -> bool {
    parent.is_none_or(|p| {
        matches!(
            p.kind(),
            "statement_block" | "program" | "switch_case" | "switch_default" | "class_static_block"
        )
    })
}

/// Whether `node` has only whitespace before it on its first line and after it on its last.
pub(super) fn alone_on_lines(src: &Source<'_>, node: Node<'_>) -> bool {
    let (start, end) = (node.start_byte(), node.end_byte());
    let before = &src.text[src.line_start(start)..start];
    let after = &src.text[end..src.line_end(end)];
    before.trim().is_empty() && after.trim().is_empty()
}

/// The edit that removes statement `node`: its whole lines when it is alone on them, else its
/// bytes and the blanks after them; `{}` in its place when it is the body of an `if` or a loop.
pub(super) fn removal(src: &Source<'_>, node: Node<'_>) -> Edit {
    if !in_block(node.parent()) {
        return Edit::new(node.byte_range(), "{}");
    }
    if alone_on_lines(src, node) {
        return Edit::delete(src.line_start(node.start_byte())..src.line_end(node.end_byte()));
    }
    let rest = &src.text[node.end_byte()..];
    let blanks = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    Edit::delete(node.start_byte()..node.end_byte() + blanks)
}

/// The statements of a block (comments left out).
pub(super) fn statements<'t>(block: Node<'t>) -> Vec<Node<'t>> {
    kids(block)
}

/// The bytes of a function's or test's body: inside the braces of a block (its first to its last
/// child, comments included; an empty range after `{` when it has none), or the expression of an
/// arrow function's expression body.
pub(super) fn body_range(body: Node<'_>) -> Range<usize> {
    if body.kind() != "statement_block" {
        return body.byte_range();
    }
    let children = crate::syntax::named_children(body);
    match (children.first(), children.last()) {
        (Some(first), Some(last)) => first.start_byte()..last.end_byte(),
        _ => {
            let at = (body.start_byte() + 1).min(body.end_byte());
            at..at
        }
    }
}

/// `node` without an `await` around it.
pub(super) fn unawaited(node: Node<'_>) -> Node<'_> {
    if node.kind() == "await_expression" {
        if let Some(inner) = node.named_child(0) {
            return inner;
        }
    }
    node
}

/// The call an expression statement makes (`f(x);`, `await f(x);`), if it is only a call.
pub(super) fn statement_call(stmt: Node<'_>) -> Option<Node<'_>> {
    if stmt.kind() != "expression_statement" {
        return None;
    }
    let expr = unawaited(stmt.named_child(0)?);
    (expr.kind() == "call_expression").then_some(expr)
}

/// The names along a call's callee, outermost object first: `assert.strict.equal(..)` gives
/// `[assert, strict, equal]`, `expect(x).not.toBe(y)` gives `[expect, not, toBe]`.
pub(super) fn callee_chain(src: &Source<'_>, call: Node<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let mut node = call.child_by_field_name("function");
    while let Some(n) = node {
        match n.kind() {
            "member_expression" => {
                if let Some(p) = n.child_by_field_name("property") {
                    out.push(src.text_of(p).to_string());
                }
                node = n.child_by_field_name("object");
            }
            "call_expression" => node = n.child_by_field_name("function"),
            "identifier" | "this" | "super" => {
                out.push(src.text_of(n).to_string());
                node = None;
            }
            _ => node = None,
        }
    }
    out.reverse();
    out
}

/// The arguments of a call or `new` (comments left out); empty when it has none or is tagged.
pub(super) fn arguments<'t>(call: Node<'t>) -> Vec<Node<'t>> {
    call.child_by_field_name("arguments")
        .filter(|a| a.kind() == "arguments")
        .map(kids)
        .unwrap_or_default()
}

/// Whether `node` is a function value (a closure as an argument).
pub(super) fn is_function_value(kind: &str) -> bool {
    matches!(
        kind,
        "arrow_function" | "function_expression" | "generator_function"
    )
}

/// The value of a string literal, or of a template literal without substitutions; `None` for
/// anything else.
pub(super) fn literal_string(src: &Source<'_>, node: Node<'_>) -> Option<String> {
    match node.kind() {
        "string" | "template_string" => {}
        _ => return None,
    }
    let mut out = String::new();
    for part in crate::syntax::named_children(node) {
        match part.kind() {
            "string_fragment" => out.push_str(src.text_of(part)),
            "escape_sequence" => out.push_str(&unescape(src.text_of(part))),
            "template_substitution" => return None,
            _ => out.push_str(src.text_of(part)),
        }
    }
    Some(out)
}

/// One escape sequence's value; the common ones decoded, any other kept as written.
fn unescape(seq: &str) -> String {
    let decoded = match seq {
        "\\n" => "\n",
        "\\t" => "\t",
        "\\r" => "\r",
        "\\0" => "\0",
        "\\\\" => "\\",
        "\\'" => "'",
        "\\\"" => "\"",
        "\\`" => "`",
        "\\$" => "$",
        _ => return seq.strip_prefix('\\').unwrap_or(seq).to_string(),
    };
    decoded.to_string()
}

/// Code quoted in a description: whitespace runs collapsed, cut to about 60 characters.
pub(super) fn quote(code: &str) -> String {
    let flat = code.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= 60 {
        return flat;
    }
    let cut: String = flat.chars().take(57).collect();
    format!("{}...", cut.trim_end())
}

/// The 1-based line holding `byte`.
pub(super) fn line_of(src: &Source<'_>, byte: usize) -> u32 {
    src.text[..byte.min(src.text.len())].matches('\n').count() as u32 + 1
}

/// The original lines `edits` touch (a range ending with a newline ends on that newline's line).
pub(super) fn edits_lines(src: &Source<'_>, edits: &[Edit]) -> [u32; 2] {
    let start = edits.iter().map(|e| e.range.start).min().unwrap_or(0);
    let end = edits
        .iter()
        .map(|e| e.range.end.saturating_sub(1).max(e.range.start))
        .max()
        .unwrap_or(0);
    [line_of(src, start), line_of(src, end)]
}

/// A simple, stable hash of a name (the sum of its bytes), to vary a form by site.
pub(super) fn name_hash(name: &str) -> usize {
    name.bytes().map(usize::from).sum()
}

/// Every node under `node` (itself included), depth first in source order.
pub(super) fn descendants(node: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut cursor = node.walk();
    loop {
        out.push(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.node() == node {
                return out;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return out;
            }
        }
    }
}
