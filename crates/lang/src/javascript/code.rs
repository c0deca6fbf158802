//! The code operators, over every function that is not test code: stubs, dropped guards and
//! error branches, flipped and shifted comparisons, swapped values and arguments, dropped side
//! effects, early returns.

use tree_sitter::Node;

use super::asserts::Library;
use super::collect::Collected;
use super::defs::Def;
use super::nodes::{
    arguments, descendants, edits_lines, is_function_value, kids, name_hash, quote, removal,
    statements, unawaited,
};
use crate::edit::Edit;
use crate::operator::{Mutation, Operator};
use crate::syntax::Source;

/// The not-implemented failures a stub raises; the first is what `neutralize` writes.
pub(super) const RAISE_FORMS: [&str; 3] = [
    "throw new Error(\"not implemented\");",
    "throw new Error('TODO');",
    "throw new TypeError(\"unimplemented\");",
];

/// Every site of code operator `op` in the functions `fns` (none of them test code).
pub(super) fn mutations(
    src: &Source<'_>,
    op: Operator,
    fns: &[Def<'_>],
    collected: &Collected<'_>,
) -> Vec<Mutation> {
    match op {
        Operator::StubRaise | Operator::StubDefault | Operator::ReturnEarly => fns
            .iter()
            .filter_map(|def| per_function(src, op, def))
            .collect(),
        _ => {
            let lib = Library::of(src);
            src.nodes()
                .into_iter()
                .filter(|n| !collected.in_region(*n))
                .filter_map(|node| {
                    let def = enclosing(fns, node)?;
                    let (description, edits) = at_node(src, op, node, &lib)?;
                    Some(mutation(src, op, def, description, edits))
                })
                .collect()
        }
    }
}

/// The innermost function holding `node`.
pub(super) fn enclosing<'a, 't>(fns: &'a [Def<'t>], node: Node<'_>) -> Option<&'a Def<'t>> {
    let r = node.byte_range();
    fns.iter()
        .filter(|d| d.node.start_byte() <= r.start && r.end <= d.node.end_byte())
        .max_by_key(|d| d.node.start_byte())
}

/// A mutation of `def`, its lines those the edits touch.
pub(super) fn mutation(
    src: &Source<'_>,
    op: Operator,
    def: &Def<'_>,
    description: String,
    edits: Vec<Edit>,
) -> Mutation {
    Mutation {
        operator: op,
        site: def.function.qualified.clone(),
        description: format!("`{}`: {description}", def.function.qualified),
        function: def.function.qualified.clone(),
        lines: edits_lines(src, &edits),
        edits,
    }
}

fn per_function(src: &Source<'_>, op: Operator, def: &Def<'_>) -> Option<Mutation> {
    // An empty body does nothing to stub or cut short.
    if def.has_block() && statements(def.body).is_empty() {
        return None;
    }
    let (description, edits) = match op {
        Operator::StubRaise => {
            if is_stub(src, def) {
                return None;
            }
            let form = RAISE_FORMS[name_hash(&def.function.qualified) % RAISE_FORMS.len()];
            (
                format!("body replaced by `{form}`"),
                vec![stub_edit(def, form)?],
            )
        }
        Operator::StubDefault => {
            if is_stub(src, def) || def.is_derived_constructor() {
                return None;
            }
            let form = default_form(src, def);
            (
                format!("body replaced by `{form}`"),
                vec![stub_edit(def, form)?],
            )
        }
        _ => return_early(src, def)?,
    };
    Some(mutation(src, op, def, description, edits))
}

/// Whether a body is already only a stub: a lone `throw`, or a lone `return` of nothing,
/// `undefined`, `null`, `{}` or `[]` (for an arrow function, such an expression).
fn is_stub(src: &Source<'_>, def: &Def<'_>) -> bool {
    let quiet = |n: Option<Node<'_>>| {
        n.is_none_or(|n| {
            let text: String = src.text_of(n).split_whitespace().collect();
            matches!(text.as_str(), "undefined" | "null" | "{}" | "[]" | "({})")
        })
    };
    if !def.has_block() {
        return quiet(Some(def.body));
    }
    match statements(def.body).as_slice() {
        [only] if only.kind() == "throw_statement" => true,
        [only] if only.kind() == "return_statement" => quiet(kids(*only).first().copied()),
        _ => false,
    }
}

/// The edit that makes `form` a function's whole body, a leading comment kept (an empty body
/// gets it inserted); an arrow function's expression body becomes a block.
pub(super) fn stub_edit(def: &Def<'_>, form: &str) -> Option<Edit> {
    if !def.has_block() {
        return Some(Edit::new(def.body.byte_range(), format!("{{ {form} }}")));
    }
    let children = crate::syntax::named_children(def.body);
    match (children.iter().find(|c| !c.is_extra()), children.last()) {
        (Some(first), Some(last)) => Some(Edit::new(first.start_byte()..last.end_byte(), form)),
        // Comments only, or nothing: the stub goes after them.
        _ => {
            let at = def.body.end_byte().checked_sub(1)?;
            Some(Edit::insert(at, format!(" {form} ")))
        }
    }
}

/// The quiet default for a function: `return [];` or `return {};` when what it returns is an
/// array or an object, else `return undefined;` or `return null;` by the name's hash.
fn default_form(src: &Source<'_>, def: &Def<'_>) -> &'static str {
    let returned: Vec<Node<'_>> = if def.has_block() {
        descendants(def.body)
            .into_iter()
            .filter(|n| n.kind() == "return_statement")
            .filter(|n| own_function(*n) == Some(def.node.id()))
            .filter_map(|n| kids(n).first().copied())
            .collect()
    } else {
        vec![def.body]
    };
    let shapes: Vec<Shape> = returned.iter().map(|e| shape(src, def, *e, 1)).collect();
    if shapes.contains(&Shape::Array) {
        "return [];"
    } else if shapes.contains(&Shape::Object) {
        "return {};"
    } else if def.function.name == "constructor" || name_hash(&def.function.qualified) % 2 == 0 {
        "return undefined;"
    } else {
        "return null;"
    }
}

/// Whether `node` is a function (its block is a function body).
fn is_function(node: Node<'_>) -> bool {
    is_function_value(node.kind())
        || matches!(
            node.kind(),
            "function_declaration" | "generator_function_declaration" | "method_definition"
        )
}

/// The id of the innermost function node holding `node`.
fn own_function(node: Node<'_>) -> Option<usize> {
    let mut at = node.parent();
    while let Some(n) = at {
        if is_function(n) {
            return Some(n.id());
        }
        at = n.parent();
    }
    None
}

#[derive(PartialEq)]
enum Shape {
    Array,
    Object,
    Other,
}

/// What a returned expression is: an array, an object, or something else; a local variable is
/// followed to its initializer (`depth` times).
fn shape(src: &Source<'_>, def: &Def<'_>, expr: Node<'_>, depth: u32) -> Shape {
    const ARRAY_METHODS: [&str; 12] = [
        "map", "filter", "slice", "concat", "flat", "flatMap", "sort", "reverse", "split", "keys",
        "values", "entries",
    ];
    match expr.kind() {
        "array" => Shape::Array,
        "object" => Shape::Object,
        "parenthesized_expression" => kids(expr)
            .first()
            .map_or(Shape::Other, |e| shape(src, def, *e, depth)),
        "new_expression" => match expr.child_by_field_name("constructor") {
            Some(c) if src.text_of(c) == "Array" => Shape::Array,
            _ => Shape::Object,
        },
        "call_expression" => {
            let chain = super::nodes::callee_chain(src, expr);
            let last = chain.last().map(String::as_str).unwrap_or("");
            match (chain.first().map(String::as_str), last) {
                (Some("Array"), "from" | "of") => Shape::Array,
                (Some("Object"), "create" | "assign" | "fromEntries") => Shape::Object,
                (_, m) if chain.len() > 1 && ARRAY_METHODS.contains(&m) => Shape::Array,
                _ => Shape::Other,
            }
        }
        "identifier" if depth > 0 => {
            let name = src.text_of(expr);
            descendants(def.body)
                .into_iter()
                .filter(|n| n.kind() == "variable_declarator")
                .filter(|n| n.child_by_field_name("name").map(|x| src.text_of(x)) == Some(name))
                .find_map(|n| n.child_by_field_name("value"))
                .map_or(Shape::Other, |v| shape(src, def, v, depth - 1))
        }
        _ => Shape::Other,
    }
}

/// `return;` before the last of two or more statements.
fn return_early(src: &Source<'_>, def: &Def<'_>) -> Option<(String, Vec<Edit>)> {
    if !def.has_block() {
        return None;
    }
    let stmts = statements(def.body);
    let last = *stmts.last().filter(|_| stmts.len() >= 2)?;
    // Before a bare `return;` or a (hoisted) function declaration, a return changes nothing.
    let bare_return = last.kind() == "return_statement" && kids(last).is_empty();
    if bare_return || last.kind() == "function_declaration" {
        return None;
    }
    let start = last.start_byte();
    let line_start = src.line_start(start);
    let edit = if src.text[line_start..start].trim().is_empty() {
        let eol = if src.text[..line_start].ends_with("\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        Edit::insert(line_start, format!("{}return;{eol}", src.indent_at(start)))
    } else {
        Edit::insert(start, "return; ")
    };
    let description = format!(
        "`return;` inserted before its last statement `{}`",
        quote(src.text_of(last))
    );
    Some((description, vec![edit]))
}

/// The site of a node-level operator at `node`, if it is one: its description and edits.
fn at_node(
    src: &Source<'_>,
    op: Operator,
    node: Node<'_>,
    lib: &Library,
) -> Option<(String, Vec<Edit>)> {
    match op {
        Operator::DropGuard => drop_guard(src, node),
        Operator::DropErrorBranch => drop_error_branch(src, node),
        Operator::FlipComparison | Operator::ShiftBoundary => comparison(src, op, node),
        Operator::SwapReturnValues => swap_return_values(src, node),
        Operator::SwapCallArgs => swap_call_args(src, node),
        Operator::DropSideEffect => drop_side_effect(src, node, lib),
        _ => None,
    }
}

fn drop_guard(src: &Source<'_>, node: Node<'_>) -> Option<(String, Vec<Edit>)> {
    if node.kind() != "if_statement" || node.child_by_field_name("alternative").is_some() {
        return None;
    }
    let body = node.child_by_field_name("consequence")?;
    let exits = |n: &Node<'_>| matches!(n.kind(), "throw_statement" | "return_statement");
    let guard = match body.kind() {
        "statement_block" => {
            let stmts = statements(body);
            !stmts.is_empty() && stmts.iter().all(exits)
        }
        _ => exits(&body),
    };
    // A guard that returns nothing as its function's last statement exits where the function
    // ends anyway: deleting it changes nothing.
    let bare = |n: &Node<'_>| n.kind() == "return_statement" && kids(*n).is_empty();
    let exits_at_end = match body.kind() {
        "statement_block" => statements(body).iter().all(bare),
        _ => bare(&body),
    };
    let mut next = node.next_named_sibling();
    while next.is_some_and(|n| n.is_extra()) {
        next = next.and_then(|n| n.next_named_sibling());
    }
    let last_in_function = next.is_none()
        && node
            .parent()
            .filter(|p| p.kind() == "statement_block")
            .and_then(|p| p.parent())
            .is_some_and(is_function);
    if exits_at_end && last_in_function {
        return None;
    }
    guard.then(|| {
        (
            format!("the guard `{}` deleted", quote(src.text_of(node))),
            vec![removal(src, node)],
        )
    })
}

fn drop_error_branch(src: &Source<'_>, node: Node<'_>) -> Option<(String, Vec<Edit>)> {
    if node.kind() != "catch_clause" {
        return None;
    }
    let body = node.child_by_field_name("body")?;
    let stmts = statements(body);
    let (throws, cleanup): (Vec<Node<'_>>, Vec<Node<'_>>) =
        stmts.iter().partition(|s| s.kind() == "throw_statement");
    if cleanup.is_empty() {
        return None;
    }
    if let Some(rethrow) = throws.first() {
        let edits = cleanup.iter().map(|s| removal(src, *s)).collect();
        let description = format!(
            "the catch clause's cleanup deleted, only `{}` kept",
            quote(src.text_of(*rethrow))
        );
        return Some((description, edits));
    }
    Some((
        "the catch clause emptied: the error is swallowed, its handling skipped".to_string(),
        vec![Edit::new(body.byte_range(), "{}")],
    ))
}

fn comparison(src: &Source<'_>, op: Operator, node: Node<'_>) -> Option<(String, Vec<Edit>)> {
    if node.kind() != "binary_expression" {
        return None;
    }
    let operator = node.child_by_field_name("operator")?;
    let old = src.text_of(operator);
    let new = match (op, old) {
        (Operator::FlipComparison, _) => match old {
            "===" => "!==",
            "!==" => "===",
            "==" => "!=",
            "!=" => "==",
            "<" => ">=",
            ">=" => "<",
            ">" => "<=",
            "<=" => ">",
            _ => return None,
        },
        (_, "<") => "<=",
        (_, "<=") => "<",
        (_, ">") => ">=",
        (_, ">=") => ">",
        _ => return None,
    };
    let text = src.text_of(node);
    let at = operator.start_byte() - node.start_byte();
    let mutated = format!("{}{new}{}", &text[..at], &text[at + old.len()..]);
    let description = format!("`{}` becomes `{}`", quote(text), quote(&mutated));
    Some((description, vec![Edit::new(operator.byte_range(), new)]))
}

/// The edits that swap two nodes' texts.
fn swap(src: &Source<'_>, a: Node<'_>, b: Node<'_>) -> Vec<Edit> {
    vec![
        Edit::new(a.byte_range(), src.text_of(b)),
        Edit::new(b.byte_range(), src.text_of(a)),
    ]
}

fn swap_return_values(src: &Source<'_>, node: Node<'_>) -> Option<(String, Vec<Edit>)> {
    if node.kind() != "return_statement" {
        return None;
    }
    let array = *kids(node).first().filter(|a| a.kind() == "array")?;
    let values = kids(array);
    let (a, b) = (*values.first()?, *values.get(1)?);
    if [a, b].iter().any(|v| v.kind() == "spread_element") || src.text_of(a) == src.text_of(b) {
        return None;
    }
    let description = format!(
        "the first two values of the returned `{}` swapped",
        quote(src.text_of(array))
    );
    Some((description, swap(src, a, b)))
}

fn swap_call_args(src: &Source<'_>, node: Node<'_>) -> Option<(String, Vec<Edit>)> {
    if !matches!(node.kind(), "call_expression" | "new_expression") {
        return None;
    }
    let args = arguments(node);
    let (a, b) = (*args.first()?, *args.get(1)?);
    let simple = |n: Node<'_>| n.kind() != "spread_element" && !is_function_value(n.kind());
    if !simple(a) || !simple(b) || src.text_of(a) == src.text_of(b) {
        return None;
    }
    let description = format!(
        "the first two arguments of `{}` swapped",
        quote(src.text_of(node))
    );
    Some((description, swap(src, a, b)))
}

fn drop_side_effect(
    src: &Source<'_>,
    node: Node<'_>,
    lib: &Library,
) -> Option<(String, Vec<Edit>)> {
    if node.kind() != "expression_statement" {
        return None;
    }
    let expr = unawaited(*kids(node).first()?);
    let effect = match expr.kind() {
        "call_expression" => {
            lib.assertion(src, node).is_none()
                && expr
                    .child_by_field_name("function")
                    .is_some_and(|f| f.kind() != "super")
        }
        "assignment_expression" | "augmented_assignment_expression" => expr
            .child_by_field_name("left")
            .filter(|l| matches!(l.kind(), "member_expression" | "subscript_expression"))
            .and_then(|l| l.child_by_field_name("object"))
            .is_some_and(|o| o.kind() != "this"),
        "unary_expression" => expr
            .child_by_field_name("operator")
            .is_some_and(|o| src.text_of(o) == "delete"),
        _ => false,
    };
    effect.then(|| {
        (
            format!("the statement `{}` deleted", quote(src.text_of(node))),
            vec![removal(src, node)],
        )
    })
}
