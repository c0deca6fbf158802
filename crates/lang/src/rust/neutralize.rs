//! An obligation's lines with their behaviour removed: a whole function (or its whole body)
//! stubbed with `todo!()`, else every statement wholly inside the lines deleted (but a `let` whose
//! name the code left behind still uses, which would not compile without it).

use tree_sitter::Node;

use super::items::{fn_items, FnItem};
use super::stubs::{raise_edit, RAISE_FORMS};
use super::{delete_range, ends_with_semicolon, quote, statements};
use crate::edit::Edit;
use crate::operator::{slug, Mutation, Operator};
use crate::syntax::{named_children, Source};

/// The lines' behaviour removed: the covered functions stubbed, else the statements inside them
/// deleted; `None` when neither applies or a deletion would leave a block without its value.
pub(crate) fn neutralize(src: &Source<'_>, lines: [u32; 2]) -> Option<Mutation> {
    let fns = fn_items(src);
    let covered: Vec<&FnItem<'_>> = fns.iter().filter(|f| covers(src, f, lines)).collect();
    let outermost: Vec<&FnItem<'_>> = covered
        .iter()
        .copied()
        .filter(|f| {
            !covered
                .iter()
                .any(|g| g.node != f.node && inside(f.node, g.node))
        })
        .collect();
    if !outermost.is_empty() {
        return stub(src, &outermost, lines);
    }
    let mut doomed = Vec::new();
    collect(src, src.root(), lines, &mut doomed);
    let first = *doomed.first()?;
    let owner = fns
        .iter()
        .filter(|f| inside(first, f.body))
        .min_by_key(|f| f.body.byte_range().len())?;
    if doomed.iter().any(|s| is_valued_tail(src, &fns, *s)) {
        return None;
    }
    spare_used_lets(src, owner.body, &mut doomed);
    if doomed.is_empty() {
        return None;
    }
    let quoted: Vec<String> = doomed
        .iter()
        .map(|s| format!("`{}`", quote(src.text_of(*s))))
        .collect();
    let description = format!(
        "`{}`: lines {}-{} neutralized, {} statement(s) deleted: {}",
        owner.qualified,
        lines[0],
        lines[1],
        doomed.len(),
        quoted.join(", ")
    );
    let edits = doomed
        .iter()
        .map(|s| Edit::delete(delete_range(src, *s)))
        .collect();
    let mut m = super::mutation(
        src,
        Operator::DropSideEffect,
        &owner.qualified,
        description,
        edits,
    );
    m.site = slug(&owner.name);
    Some(m)
}

/// Every covered function's body replaced by `todo!()` (already-stubbed ones left alone).
fn stub(src: &Source<'_>, fns: &[&FnItem<'_>], lines: [u32; 2]) -> Option<Mutation> {
    let stubbed: Vec<(&FnItem<'_>, Edit)> = fns
        .iter()
        .filter_map(|f| Some((*f, raise_edit(src, f, RAISE_FORMS[0])?)))
        .collect();
    let (first, _) = stubbed.first()?;
    let names: Vec<String> = stubbed
        .iter()
        .map(|(f, _)| format!("`{}`", f.qualified))
        .collect();
    let description = format!(
        "{}: lines {}-{} neutralized, the body replaced by `{}`",
        names.join(", "),
        lines[0],
        lines[1],
        RAISE_FORMS[0]
    );
    let site = slug(&first.name);
    let function = first.qualified.clone();
    let edits = stubbed.into_iter().map(|(_, e)| e).collect();
    let mut m = super::mutation(src, Operator::StubRaise, &function, description, edits);
    m.site = site;
    Some(m)
}

/// Whether `lines` cover a function from its `fn` line to its end, or all of its body's
/// statements.
fn covers(src: &Source<'_>, f: &FnItem<'_>, lines: [u32; 2]) -> bool {
    let stmts = statements(f.body);
    let (Some(first), Some(last)) = (stmts.first(), stmts.last()) else {
        return false;
    };
    let whole = lines[0] <= src.lines_of(f.node)[0] && lines[1] >= src.lines_of(f.node)[1];
    let body = lines[0] <= src.lines_of(*first)[0] && lines[1] >= src.lines_of(*last)[1];
    whole || body
}

/// Whether `inner` lies within `outer`'s bytes.
fn inside(inner: Node<'_>, outer: Node<'_>) -> bool {
    outer.start_byte() <= inner.start_byte() && inner.end_byte() <= outer.end_byte()
}

/// The outermost statements wholly inside `lines`, in source order.
fn collect<'t>(src: &Source<'_>, node: Node<'t>, lines: [u32; 2], out: &mut Vec<Node<'t>>) {
    let is_block = node.kind() == "block";
    let stmts = if is_block {
        statements(node)
    } else {
        Vec::new()
    };
    for child in named_children(node) {
        let [a, b] = src.lines_of(child);
        if b < lines[0] || a > lines[1] {
            continue;
        }
        if is_block && stmts.contains(&child) && a >= lines[0] && b <= lines[1] {
            out.push(child);
        } else {
            collect(src, child, lines, out);
        }
    }
}

/// Takes out of `doomed` every `let` whose names the code left behind still uses (deleting it
/// would not compile), until none is left.
fn spare_used_lets(src: &Source<'_>, body: Node<'_>, doomed: &mut Vec<Node<'_>>) {
    let idents: Vec<Node<'_>> = src
        .nodes()
        .into_iter()
        .filter(|n| n.kind() == "identifier" && inside(*n, body))
        .collect();
    loop {
        let before = doomed.len();
        let snapshot = doomed.clone();
        doomed.retain(|stmt| {
            if stmt.kind() != "let_declaration" {
                return true;
            }
            let Some(pattern) = stmt.child_by_field_name("pattern") else {
                return true;
            };
            let names: Vec<&str> = idents
                .iter()
                .filter(|i| inside(**i, pattern))
                .map(|i| src.text_of(*i))
                .collect();
            !idents.iter().any(|i| {
                i.start_byte() >= stmt.end_byte()
                    && names.contains(&src.text_of(*i))
                    && !snapshot.iter().any(|d| inside(*i, *d))
            })
        });
        if doomed.len() == before {
            return;
        }
    }
}

/// Whether a statement is its block's tail expression and may be a value other than `()`: its
/// deletion would not compile.
fn is_valued_tail(src: &Source<'_>, fns: &[FnItem<'_>], stmt: Node<'_>) -> bool {
    let Some(block) = stmt.parent() else {
        return false;
    };
    if statements(block).last() != Some(&stmt)
        || stmt.kind() == "let_declaration"
        || (stmt.kind() == "expression_statement" && ends_with_semicolon(src, stmt))
        || super::items::is_item(stmt)
    {
        return false;
    }
    let e = super::inner_expression(stmt);
    let unit_kind = matches!(e.kind(), "for_expression" | "while_expression")
        || (e.kind() == "if_expression" && e.child_by_field_name("alternative").is_none());
    let unit_fn_body = fns.iter().any(|f| {
        f.body == block
            && f.node
                .child_by_field_name("return_type")
                .is_none_or(|t| t.kind() == "unit_type")
    });
    !(unit_kind || unit_fn_body)
}
