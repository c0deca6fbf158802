//! An obligation's lines with their behaviour removed: a function they cover whole (or whose
//! whole body they cover) stubbed with the not-implemented failure, else every statement wholly
//! inside them deleted. The site is the enclosing function's qualified name (`<module>` at the
//! top level), slugged as every site is.

use tree_sitter::Node;

use super::code::{enclosing, stub_edit, RAISE_FORMS};
use super::defs::{self, Def};
use super::nodes::{edits_lines, is_statement, kids, quote, removal, statements};
use crate::edit::Edit;
use crate::operator::{slug, Mutation, Operator};
use crate::syntax::Source;

/// `lines` of `src` neutralized; `None` when no whole function or statement lies inside them.
pub(crate) fn neutralize(src: &Source<'_>, lines: [u32; 2]) -> Option<Mutation> {
    let fns = defs::find(src);
    let covered: Vec<&Def<'_>> = fns.iter().filter(|d| covers(src, lines, d)).collect();
    let outermost: Vec<&Def<'_>> = covered
        .iter()
        .filter(|d| {
            !covered.iter().any(|o| {
                o.node != d.node
                    && o.node.start_byte() <= d.node.start_byte()
                    && d.node.end_byte() <= o.node.end_byte()
            })
        })
        .copied()
        .collect();
    if let Some(first) = outermost.first() {
        let edits: Vec<Edit> = outermost
            .iter()
            .filter_map(|d| stub_edit(d, RAISE_FORMS[0]))
            .collect();
        if !edits.is_empty() {
            let names: Vec<String> = outermost
                .iter()
                .map(|d| format!("`{}`", d.function.qualified))
                .collect();
            let description = format!(
                "{}: body replaced by `{}`",
                names.join(", "),
                RAISE_FORMS[0]
            );
            return Some(Mutation {
                operator: Operator::StubRaise,
                site: slug(&first.function.qualified),
                description,
                function: first.function.qualified.clone(),
                lines: edits_lines(src, &edits),
                edits,
            });
        }
    }
    delete_statements(src, lines, &fns)
}

/// Whether `lines` cover a whole definition, or lie inside it and cover its whole body.
fn covers(src: &Source<'_>, lines: [u32; 2], def: &Def<'_>) -> bool {
    let whole = def.function.lines;
    if lines[0] <= whole[0] && whole[1] <= lines[1] {
        return true;
    }
    let inside = whole[0] <= lines[0] && lines[1] <= whole[1];
    let body: Vec<Node<'_>> = if def.has_block() {
        statements(def.body)
    } else {
        vec![def.body]
    };
    let (Some(first), Some(last)) = (body.first(), body.last()) else {
        return false;
    };
    inside && lines[0] <= src.lines_of(*first)[0] && src.lines_of(*last)[1] <= lines[1]
}

fn delete_statements(src: &Source<'_>, lines: [u32; 2], fns: &[Def<'_>]) -> Option<Mutation> {
    let mut found = Vec::new();
    gather(src, src.root(), lines, &mut found);
    let first = *found.first()?;
    let edits: Vec<Edit> = found.iter().map(|s| removal(src, *s)).collect();
    let def = enclosing(fns, first);
    let function = def.map_or("<module>".to_string(), |d| d.function.qualified.clone());
    let what = if found.len() == 1 {
        format!("the statement `{}` deleted", quote(src.text_of(first)))
    } else {
        format!(
            "{} statements deleted, from `{}`",
            found.len(),
            quote(src.text_of(first))
        )
    };
    let description = match def {
        Some(d) => format!("`{}`: {what}", d.function.qualified),
        None => what,
    };
    Some(Mutation {
        operator: Operator::DropSideEffect,
        site: slug(&function),
        description,
        function,
        lines: edits_lines(src, &edits),
        edits,
    })
}

/// The outermost statements under `node` that lie wholly inside `lines`.
fn gather<'t>(src: &Source<'_>, node: Node<'t>, lines: [u32; 2], out: &mut Vec<Node<'t>>) {
    for child in kids(node) {
        let [start, end] = src.lines_of(child);
        if end < lines[0] || start > lines[1] {
            continue;
        }
        if is_statement(child.kind()) && lines[0] <= start && end <= lines[1] {
            out.push(child);
        } else {
            gather(src, child, lines, out);
        }
    }
}
