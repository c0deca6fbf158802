//! A test's assertions (`assert`, `with pytest.raises(...)` blocks, unittest's `self.assert*`
//! calls) and the operators on them: one deleted, one made trivially true, every negative one
//! deleted.

use tree_sitter::Node;

use super::mutation;
use crate::edit::Edit;
use crate::operator::{Mutation, Operator};
use crate::python::collect::TestDef;
use crate::python::edits::{delete_statements, parses_after};
use crate::python::tree::{
    call_of_stmt, callee_path, own_nodes, quote, statements, with_raises_call,
};
use crate::syntax::{named_children, Source};

/// How a test asserts.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// An `assert` statement.
    Assert,
    /// A `with pytest.raises(...)` (or `with self.assertRaises(...)`) block.
    Raises,
    /// A statement calling `self.assert*(...)` or `pytest.raises(...)`.
    Call,
}

/// One assertion: the statement and its kind.
#[derive(Clone, Copy)]
struct Check<'t> {
    stmt: Node<'t>,
    kind: Kind,
}

/// The test's own assertions in source order (nested functions and classes left out).
fn checks<'t>(src: &Source<'_>, test: &TestDef<'t>) -> Vec<Check<'t>> {
    own_nodes(test.def.body)
        .into_iter()
        .filter_map(|stmt| {
            let kind = match stmt.kind() {
                "assert_statement" => Kind::Assert,
                "with_statement" if with_raises_call(src, stmt).is_some() => Kind::Raises,
                "expression_statement" => {
                    let callee = callee_path(src, call_of_stmt(stmt)?)?;
                    (callee.starts_with("self.assert") || callee == "pytest.raises")
                        .then_some(Kind::Call)?
                }
                _ => return None,
            };
            Some(Check { stmt, kind })
        })
        .collect()
}

/// Each assertion of the test deleted, one mutation each; a `pytest.raises` block is replaced
/// by its body.
pub(super) fn drop_each(src: &Source<'_>, test: &TestDef<'_>) -> Vec<Mutation> {
    checks(src, test)
        .into_iter()
        .map(|c| {
            let (edits, what) = match c.kind {
                Kind::Raises => (
                    unwrap_raises(src, c.stmt),
                    format!(
                        "the check `{}` removed, its body kept",
                        quote(header_of(src, c.stmt))
                    ),
                ),
                _ => (
                    delete_statements(src, &[c.stmt]),
                    format!("the assertion `{}` deleted", quote(src.text_of(c.stmt))),
                ),
            };
            let description = format!("`{}`: {what}", test.name);
            mutation(src, Operator::DropAssertion, test, description, edits)
        })
        .collect()
}

/// Each `assert` replaced by `assert True` and each `self.assert*(...)` by
/// `self.assertTrue(True)`, one mutation each (`pytest.raises` has no trivial form).
pub(super) fn trivial_each(src: &Source<'_>, test: &TestDef<'_>) -> Vec<Mutation> {
    let mut out = Vec::new();
    for c in checks(src, test) {
        let (range, text) = match c.kind {
            Kind::Assert => (c.stmt.byte_range(), "assert True"),
            Kind::Call => match call_of_stmt(c.stmt) {
                Some(call) if callee_path(src, call).is_some_and(|p| p.starts_with("self.")) => {
                    (call.byte_range(), "self.assertTrue(True)")
                }
                _ => continue,
            },
            Kind::Raises => continue,
        };
        if src.text[range.clone()] == *text {
            continue;
        }
        let description = format!(
            "`{}`: the assertion `{}` replaced by `{text}`",
            test.name,
            quote(src.text_of(c.stmt))
        );
        let edits = vec![Edit::new(range, text)];
        out.push(mutation(
            src,
            Operator::TrivialAssertion,
            test,
            description,
            edits,
        ));
    }
    out
}

/// Every negative assertion of the test deleted, when it has one and also another kind.
pub(super) fn drop_negatives(src: &Source<'_>, test: &TestDef<'_>) -> Option<Mutation> {
    let all = checks(src, test);
    let (negative, positive): (Vec<Check<'_>>, Vec<Check<'_>>) =
        all.into_iter().partition(|c| is_negative(src, *c));
    if negative.is_empty() || positive.is_empty() {
        return None;
    }
    let stmts: Vec<Node<'_>> = negative.iter().map(|c| c.stmt).collect();
    let listed: Vec<String> = stmts.iter().map(|s| quote(src.text_of(*s))).collect();
    let description = format!(
        "`{}`: its {} negative assertion(s) deleted (`{}`)",
        test.name,
        stmts.len(),
        quote(&listed.join("`, `"))
    );
    let edits = delete_statements(src, &stmts);
    Some(mutation(
        src,
        Operator::DropNegativeAssertions,
        test,
        description,
        edits,
    ))
}

/// Whether an assertion says that something did not happen, is absent or is empty: `assert not
/// ...`, `is None`, `not in`, `!=`, `== <empty or zero>`, unittest's `assertFalse`,
/// `assertIsNone`, `assertNotIn`, `assertNotEqual`, and `assertEqual` with an empty value.
fn is_negative(src: &Source<'_>, check: Check<'_>) -> bool {
    match check.kind {
        Kind::Assert => check
            .stmt
            .named_child(0)
            .is_some_and(|e| is_negative_expr(src, e)),
        Kind::Raises => false,
        Kind::Call => {
            let Some(call) = call_of_stmt(check.stmt) else {
                return false;
            };
            let name = callee_path(src, call).unwrap_or_default();
            let args = call
                .child_by_field_name("arguments")
                .map(named_children)
                .unwrap_or_default();
            match name.strip_prefix("self.").unwrap_or("") {
                "assertFalse" | "assertIsNone" | "assertNotIn" | "assertNotEqual" => true,
                "assertEqual" => args.iter().take(2).any(|a| is_empty_value(src, *a)),
                _ => false,
            }
        }
    }
}

fn is_negative_expr(src: &Source<'_>, expr: Node<'_>) -> bool {
    match expr.kind() {
        "not_operator" => true,
        "parenthesized_expression" => expr
            .named_child(0)
            .is_some_and(|e| is_negative_expr(src, e)),
        "comparison_operator" => {
            let mut cursor = expr.walk();
            let ops: Vec<&str> = expr
                .children_by_field_name("operators", &mut cursor)
                .map(|o| o.kind())
                .collect();
            let operands: Vec<Node<'_>> = named_children(expr)
                .into_iter()
                .filter(|c| c.kind() != "comment")
                .collect();
            let [op] = ops.as_slice() else {
                return false;
            };
            let (Some(left), Some(right)) = (operands.first(), operands.last()) else {
                return false;
            };
            match *op {
                "not in" | "!=" => true,
                "is" => right.kind() == "none",
                "==" => is_empty_value(src, *left) || is_empty_value(src, *right),
                _ => false,
            }
        }
        _ => false,
    }
}

/// `[]`, `{}`, `()`, `0`, `None`, `False`, `""`, `set()`.
fn is_empty_value(src: &Source<'_>, node: Node<'_>) -> bool {
    let text = src.text_of(node);
    match node.kind() {
        "list" | "dictionary" | "tuple" => node.named_child_count() == 0,
        "integer" => text == "0",
        "none" | "false" => true,
        "string" => {
            let body = text.trim_start_matches(|c: char| c.is_ascii_alphabetic());
            matches!(body, "\"\"" | "''" | "\"\"\"\"\"\"" | "''''''")
        }
        "call" => text.split_whitespace().collect::<String>() == "set()",
        _ => false,
    }
}

/// `with pytest.raises(...) [as x]:` as written, without its colon.
fn header_of<'a>(src: &Source<'a>, with: Node<'_>) -> &'a str {
    let end = with
        .child_by_field_name("body")
        .map_or(with.end_byte(), |b| b.start_byte());
    let header = src.text[with.start_byte()..end].trim();
    header.strip_suffix(':').unwrap_or(header)
}

/// The edits replacing a `with pytest.raises(...)` block by its body: dedented to the block's
/// indentation, or (where the body's lines cannot be dedented, as in a string spanning lines)
/// kept under `if True:`, or else the block deleted.
fn unwrap_raises(src: &Source<'_>, with: Node<'_>) -> Vec<Edit> {
    let Some(body) = with.child_by_field_name("body") else {
        return delete_statements(src, &[with]);
    };
    let stmts = statements(body);
    let (Some(first), Some(last)) = (stmts.first(), stmts.last()) else {
        return delete_statements(src, &[with]);
    };
    let same_line = src.line_start(first.start_byte()) == src.line_start(with.start_byte());
    let dedented = if same_line {
        Some(vec![Edit::new(
            with.start_byte()..last.end_byte(),
            &src.text[first.start_byte()..last.end_byte()],
        )])
    } else {
        dedent(src, with, first.start_byte(), last.end_byte())
    };
    let colon = (0..with.child_count())
        .filter_map(|i| with.child(i))
        .find(|c| c.kind() == ":");
    let wrapped = colon.map(|c| vec![Edit::new(with.start_byte()..c.end_byte(), "if True:")]);
    [dedented, wrapped]
        .into_iter()
        .flatten()
        .find(|edits| parses_after(src, edits))
        .unwrap_or_else(|| delete_statements(src, &[with]))
}

/// The edit replacing the lines from `with`'s to `end` by the body's lines (from `start`'s)
/// dedented to `with`'s indentation; `None` when a line of the body does not carry the body's
/// indentation.
fn dedent(src: &Source<'_>, with: Node<'_>, start: usize, end: usize) -> Option<Vec<Edit>> {
    let outer = src.indent_at(with.start_byte());
    let inner = src.indent_at(start);
    if inner.len() <= outer.len() || !inner.starts_with(outer) {
        return None;
    }
    let mut lines = Vec::new();
    for line in src.text[src.line_start(start)..end].split('\n') {
        if line.trim().is_empty() {
            lines.push(String::new());
        } else {
            lines.push(format!("{outer}{}", line.strip_prefix(inner)?));
        }
    }
    Some(vec![Edit::new(
        src.line_start(with.start_byte())..end,
        lines.join("\n"),
    )])
}
