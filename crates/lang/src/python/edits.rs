//! Edits on Python statements that keep the file valid: statements deleted (a block left empty
//! keeps a `pass`), a body replaced, lines inserted at the source's own indentation, and
//! `import pytest` added where a mark needs it.

use tree_sitter::Node;

use super::tree::{body_statements, statements};
use crate::edit::{apply, Edit};
use crate::syntax::Source;

/// Edits deleting `stmts` (statements of blocks or of the module). A statement alone on its
/// lines loses its lines; one sharing a line with other code becomes `pass`; when every
/// statement of a block goes, the first becomes `pass` so the block still parses.
pub(super) fn delete_statements(src: &Source<'_>, stmts: &[Node<'_>]) -> Vec<Edit> {
    let mut edits = Vec::new();
    let mut done: Vec<usize> = Vec::new();
    for stmt in stmts {
        let Some(parent) = stmt.parent() else {
            continue;
        };
        if done.contains(&parent.id()) {
            continue;
        }
        done.push(parent.id());
        let mut group: Vec<Node<'_>> = stmts
            .iter()
            .copied()
            .filter(|s| s.parent().is_some_and(|p| p.id() == parent.id()))
            .collect();
        group.sort_by_key(|s| s.start_byte());
        group.dedup_by_key(|s| s.id());
        let emptied = parent.kind() != "module" && statements(parent).len() == group.len();
        for (i, s) in group.iter().enumerate() {
            if (emptied && i == 0) || !alone_on_lines(src, *s) {
                edits.push(Edit::new(s.byte_range(), "pass"));
            } else {
                edits.push(Edit::delete(
                    src.line_start(s.start_byte())..src.line_end(s.end_byte()),
                ));
            }
        }
    }
    edits
}

/// Whether nothing but indentation precedes a statement on its first line and nothing but a
/// comment follows it on its last.
pub(super) fn alone_on_lines(src: &Source<'_>, stmt: Node<'_>) -> bool {
    let before = &src.text[src.line_start(stmt.start_byte())..stmt.start_byte()];
    let after = &src.text[stmt.end_byte()..src.line_end(stmt.end_byte())];
    let after = after.trim();
    before.trim().is_empty() && (after.is_empty() || after.starts_with('#'))
}

/// The edit replacing a body's statements after its docstring by `text` (the first statement's
/// indentation kept); `None` when the body is only a docstring.
pub(super) fn replace_body(block: Node<'_>, text: &str) -> Option<Edit> {
    let stmts = body_statements(block);
    let (first, last) = (stmts.first()?, stmts.last()?);
    Some(Edit::new(first.start_byte()..last.end_byte(), text))
}

/// The edit inserting `line` as a whole line just above the line holding `at`, with that
/// line's indentation.
pub(super) fn insert_line_above(src: &Source<'_>, at: usize, line: &str) -> Edit {
    let indent = src.indent_at(at);
    Edit::insert(src.line_start(at), format!("{indent}{line}\n"))
}

/// The edit inserting `line` (indented by `indent`) as a whole line just below the line holding
/// `at`.
pub(super) fn insert_line_below(src: &Source<'_>, at: usize, indent: &str, line: &str) -> Edit {
    let end = src.line_end(at);
    let newline = if src.text[..end].ends_with('\n') {
        ""
    } else {
        "\n"
    };
    Edit::insert(end, format!("{newline}{indent}{line}\n"))
}

/// The edit adding `import pytest` below the last top-level import (at the top of the file when
/// it has none); `None` when the module already imports `pytest` under that name.
pub(super) fn pytest_import(src: &Source<'_>) -> Option<Edit> {
    let top = statements(src.root());
    let imports: Vec<Node<'_>> = top
        .iter()
        .copied()
        .filter(|s| {
            matches!(
                s.kind(),
                "import_statement" | "import_from_statement" | "future_import_statement"
            )
        })
        .collect();
    let imported = imports.iter().any(|s| {
        s.kind() == "import_statement"
            && crate::syntax::named_children(*s)
                .iter()
                .any(|c| c.kind() == "dotted_name" && src.text_of(*c) == "pytest")
    });
    if imported {
        return None;
    }
    Some(match imports.last() {
        Some(last) => insert_line_below(src, last.end_byte(), "", "import pytest"),
        None => match top.first().filter(|s| super::tree::is_string_stmt(**s)) {
            Some(doc) => insert_line_below(src, doc.end_byte(), "", "import pytest"),
            None => Edit::insert(0, "import pytest\n"),
        },
    })
}

/// Whether the source with `edits` applied still parses without a syntax error.
pub(super) fn parses_after(src: &Source<'_>, edits: &[Edit]) -> bool {
    let text = apply(src.text, edits);
    Source::parse(src.lang, &text).is_ok_and(|s| !s.has_error())
}
