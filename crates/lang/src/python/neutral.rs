//! Cited lines with their behaviour removed: a function whose body the lines cover is stubbed
//! with `raise NotImplementedError`; otherwise every statement wholly inside the lines is
//! deleted (a compound one whole), a block left empty keeping a `pass`. Docstrings and imports
//! are kept: they have no behaviour of their own.

use tree_sitter::Node;

use super::code::STUB_RAISE;
use super::edits::{delete_statements, replace_body};
use super::tree::{definition_of, end_of, is_string_stmt, line_of, lines_of_edits, quote};
use super::tree::{statements, Def};
use crate::operator::{Mutation, Operator};
use crate::syntax::{named_children, Source};

/// What neutralizing the lines does: functions to stub, statements to delete.
#[derive(Default)]
struct Plan<'t> {
    stubs: Vec<Def<'t>>,
    deletes: Vec<Node<'t>>,
}

/// `lines` of `src` neutralized; `None` when no whole statement lies inside them.
pub(super) fn neutralize(src: &Source<'_>, lines: [u32; 2]) -> Option<Mutation> {
    if lines[0] == 0 || lines[1] < lines[0] {
        return None;
    }
    let mut plan = Plan::default();
    visit_block(src, src.root(), lines, &mut plan);
    let stub = STUB_RAISE[0];
    let stubs: Vec<&Def<'_>> = plan
        .stubs
        .iter()
        .filter(|d| {
            let stmts = d.statements();
            !(stmts.len() == 1 && src.text_of(stmts[0]) == stub)
        })
        .collect();
    let mut edits: Vec<_> = stubs
        .iter()
        .filter_map(|d| replace_body(d.body, stub))
        .collect();
    edits.extend(delete_statements(src, &plan.deletes));
    if edits.is_empty() {
        return None;
    }
    let (operator, owner, description) = match (stubs.first(), plan.deletes.first()) {
        (Some(d), _) => {
            let text = match stubs.len() {
                1 => format!("`{}`: body replaced by `{stub}`", d.qualified),
                n => format!(
                    "`{}` and {} more functions: bodies replaced by `{stub}`",
                    d.qualified,
                    n - 1
                ),
            };
            (Operator::StubRaise, d.qualified.clone(), text)
        }
        (None, Some(first)) => {
            let owner = enclosing(src, *first).map_or("<module>".into(), |d| d.qualified);
            let listed: Vec<String> = plan
                .deletes
                .iter()
                .map(|s| src.text_of(*s))
                .map(quote)
                .collect();
            let text = format!(
                "`{owner}`: {} statement(s) of lines {}-{} deleted (`{}`)",
                plan.deletes.len(),
                lines[0],
                lines[1],
                quote(&listed.join("`, `"))
            );
            (Operator::DropSideEffect, owner, text)
        }
        (None, None) => return None,
    };
    Some(Mutation {
        operator,
        site: owner.clone(),
        description,
        function: owner,
        lines: lines_of_edits(src, &edits),
        edits,
    })
}

fn visit_block<'t>(src: &'t Source<'_>, block: Node<'t>, lines: [u32; 2], plan: &mut Plan<'t>) {
    for stmt in statements(block) {
        visit_statement(src, stmt, lines, plan);
    }
}

fn visit_statement<'t>(src: &'t Source<'_>, stmt: Node<'t>, lines: [u32; 2], plan: &mut Plan<'t>) {
    let def = definition_of(stmt);
    let end = def.map_or(stmt.end_byte(), end_of);
    let span = [
        line_of(src, stmt.start_byte()),
        line_of(src, end.saturating_sub(1)),
    ];
    let inside = |s: [u32; 2]| s[0] >= lines[0] && s[1] <= lines[1];
    if span[0] > lines[1] || span[1] < lines[0] {
        return;
    }
    match def.map(|d| (d, Def::of(src, d))) {
        Some((_, Some(f))) => {
            let stmts = f.statements();
            let body_span = match (stmts.first(), stmts.last()) {
                (Some(a), Some(b)) => [
                    line_of(src, a.start_byte()),
                    line_of(src, b.end_byte().saturating_sub(1)),
                ],
                _ => return,
            };
            if inside(body_span) {
                plan.stubs.push(f);
            } else {
                visit_block(src, f.body, lines, plan);
            }
        }
        Some((class, None)) => {
            if let Some(body) = class.child_by_field_name("body") {
                visit_block(src, body, lines, plan);
            }
        }
        // A string or an import has no behaviour of its own to remove.
        None if is_string_stmt(stmt) || stmt.kind().contains("import") => {}
        None if inside(span) => plan.deletes.push(stmt),
        None => {
            for block in blocks_of(stmt) {
                visit_block(src, block, lines, plan);
            }
        }
    }
}

/// The blocks a compound statement holds directly or through its clauses (`elif`, `else`,
/// `except`, `finally`, `case`).
fn blocks_of(stmt: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut stack = named_children(stmt);
    stack.reverse();
    while let Some(n) = stack.pop() {
        if n.kind() == "block" {
            out.push(n);
        } else {
            let mut kids = named_children(n);
            kids.reverse();
            stack.extend(kids);
        }
    }
    out
}

/// The innermost function holding a node.
fn enclosing<'t>(src: &'t Source<'_>, node: Node<'t>) -> Option<Def<'t>> {
    let mut up = node.parent();
    while let Some(p) = up {
        if let Some(d) = Def::of(src, p) {
            return Some(d);
        }
        up = p.parent();
    }
    None
}

/// The function `qualified` given a body that does nothing and raises nothing, and stays what it
/// was: a generator stays a generator (`return` then `yield`: it yields nothing), and a
/// `@contextmanager` yields once (enters, does nothing, exits); any other function gets the quiet
/// default the `stub-default` operator writes. `None` when no such function is defined or its body
/// already is a stub.
pub(super) fn quiet(src: &Source<'_>, qualified: &str) -> Option<Mutation> {
    let def = super::tree::defs(src)
        .into_iter()
        .find(|d| d.qualified == qualified)?;
    if !super::code::yields(&def) {
        return super::code::mutations(src, Operator::StubDefault)
            .into_iter()
            .find(|m| m.function == qualified);
    }
    let first = *def.statements().first()?;
    let indent = src.indent_at(first.start_byte());
    let manager = super::tree::decorators(def.node)
        .iter()
        .any(|d| src.text_of(*d).trim_end().ends_with("contextmanager"));
    let form = if manager {
        "yield".to_owned()
    } else {
        format!("return\n{indent}yield")
    };
    let edit = replace_body(def.body, &form)?;
    let edits = vec![edit];
    Some(Mutation {
        operator: Operator::StubDefault,
        site: crate::operator::slug(qualified),
        description: format!(
            "`{qualified}`: body replaced by `{}`",
            form.replace(&format!("\n{indent}"), "; ")
        ),
        function: qualified.to_owned(),
        lines: lines_of_edits(src, &edits),
        edits,
    })
}
