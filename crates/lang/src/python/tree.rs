//! Python syntax as the module's parts read it: the statements of a block, docstrings, definitions
//! with their decorators and qualified names, dotted names, the lines of edits, quoted snippets.

use tree_sitter::Node;

use crate::edit::Edit;
use crate::syntax::{named_children, Source};

/// A function definition, with what the operators need to know about it.
#[derive(Clone)]
pub(super) struct Def<'t> {
    /// The `function_definition` node.
    pub node: Node<'t>,
    /// The `decorated_definition` around it, or the node itself.
    pub outer: Node<'t>,
    /// As written.
    pub name: String,
    /// Enclosing class and function names and its own, joined by dots (`Store.save`).
    pub qualified: String,
    /// The body's `block`.
    pub body: Node<'t>,
}

impl<'t> Def<'t> {
    /// The def from a `function_definition` node; `None` for any other node.
    pub fn of(src: &'t Source<'_>, node: Node<'t>) -> Option<Def<'t>> {
        if node.kind() != "function_definition" {
            return None;
        }
        let name = src.text_of(node.child_by_field_name("name")?).to_string();
        let body = node.child_by_field_name("body")?;
        let mut parts = vec![name.clone()];
        let mut up = node.parent();
        while let Some(p) = up {
            if matches!(p.kind(), "function_definition" | "class_definition") {
                if let Some(n) = p.child_by_field_name("name") {
                    parts.push(src.text_of(n).to_string());
                }
            }
            up = p.parent();
        }
        parts.reverse();
        Some(Def {
            node,
            outer: outer_of(node),
            name,
            qualified: parts.join("."),
            body,
        })
    }

    /// The body's statements after its docstring.
    pub fn statements(&self) -> Vec<Node<'t>> {
        body_statements(self.body)
    }

    /// Whether it is `async def`.
    pub fn is_async(&self) -> bool {
        self.node.child(0).is_some_and(|c| c.kind() == "async")
    }

    /// The lines of the whole definition: its decorators to its last statement.
    pub fn lines(&self, src: &Source<'_>) -> [u32; 2] {
        let code = src.lines_of(self.outer);
        [code[0], line_of(src, end_of(self.node).saturating_sub(1))]
    }
}

/// Every function definition of the source, nested ones included, in source order.
pub(super) fn defs<'t>(src: &'t Source<'_>) -> Vec<Def<'t>> {
    src.nodes()
        .into_iter()
        .filter_map(|n| Def::of(src, n))
        .collect()
}

/// The `decorated_definition` around a definition, or the definition itself.
pub(super) fn outer_of(def: Node<'_>) -> Node<'_> {
    def.parent()
        .filter(|p| p.kind() == "decorated_definition")
        .unwrap_or(def)
}

/// The decorators written above a definition.
pub(super) fn decorators(def: Node<'_>) -> Vec<Node<'_>> {
    let outer = outer_of(def);
    if outer == def {
        return Vec::new();
    }
    named_children(outer)
        .into_iter()
        .filter(|c| c.kind() == "decorator")
        .collect()
}

/// The function or class definition a statement holds (itself, or under its decorators).
pub(super) fn definition_of(stmt: Node<'_>) -> Option<Node<'_>> {
    match stmt.kind() {
        "function_definition" | "class_definition" => Some(stmt),
        "decorated_definition" => stmt.child_by_field_name("definition"),
        _ => None,
    }
}

/// The statements of a block or module: its named children other than comments.
pub(super) fn statements(block: Node<'_>) -> Vec<Node<'_>> {
    named_children(block)
        .into_iter()
        .filter(|c| c.kind() != "comment")
        .collect()
}

/// The statements of a body after its docstring.
pub(super) fn body_statements(block: Node<'_>) -> Vec<Node<'_>> {
    let mut stmts = statements(block);
    if stmts.first().is_some_and(|s| is_string_stmt(*s)) {
        stmts.remove(0);
    }
    stmts
}

/// Where a definition's code ends: its body's last statement (trailing comments left out).
pub(super) fn end_of(def: Node<'_>) -> usize {
    def.child_by_field_name("body")
        .and_then(|b| statements(b).last().map(|s| s.end_byte()))
        .unwrap_or(def.end_byte())
}

/// Whether a statement is only a string (a docstring where it comes first).
pub(super) fn is_string_stmt(stmt: Node<'_>) -> bool {
    stmt.kind() == "expression_statement"
        && stmt.named_child_count() == 1
        && stmt
            .named_child(0)
            .is_some_and(|c| matches!(c.kind(), "string" | "concatenated_string"))
}

/// The expression of an expression statement holding exactly one expression.
pub(super) fn expression_of(stmt: Node<'_>) -> Option<Node<'_>> {
    (stmt.kind() == "expression_statement" && stmt.named_child_count() == 1)
        .then(|| stmt.named_child(0))
        .flatten()
}

/// The call a statement makes, when the statement is only a call (or an awaited call).
pub(super) fn call_of_stmt(stmt: Node<'_>) -> Option<Node<'_>> {
    let expr = expression_of(stmt)?;
    let expr = if expr.kind() == "await" {
        expr.named_child(0)?
    } else {
        expr
    };
    (expr.kind() == "call").then_some(expr)
}

/// A name or attribute chain as written without spaces (`pytest.mark.skip`); `None` for any
/// other expression.
pub(super) fn dotted(src: &Source<'_>, node: Node<'_>) -> Option<String> {
    match node.kind() {
        "identifier" => Some(src.text_of(node).to_string()),
        "attribute" => {
            let object = dotted(src, node.child_by_field_name("object")?)?;
            let attr = src.text_of(node.child_by_field_name("attribute")?);
            Some(format!("{object}.{attr}"))
        }
        _ => None,
    }
}

/// The dotted name of a call's callee, or of the expression itself when it is not a call.
pub(super) fn callee_path(src: &Source<'_>, expr: Node<'_>) -> Option<String> {
    if expr.kind() == "call" {
        dotted(src, expr.child_by_field_name("function")?)
    } else {
        dotted(src, expr)
    }
}

/// The nodes under `root` that belong to its own scope, depth first in source order: the
/// bodies of nested functions and classes are not entered (their decorators, default values and
/// base classes are evaluated in this scope, and are); lambdas are, having no statements.
pub(super) fn own_nodes(root: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        out.push(n);
        let mut kids = match n.kind() {
            "function_definition" | "class_definition" if n != root => {
                ["parameters", "superclasses"]
                    .iter()
                    .filter_map(|f| n.child_by_field_name(f))
                    .collect()
            }
            _ => named_children(n),
        };
        kids.reverse();
        stack.extend(kids);
    }
    out
}

/// The 1-based line holding `byte`.
pub(super) fn line_of(src: &Source<'_>, byte: usize) -> u32 {
    let byte = byte.min(src.text.len());
    src.text.as_bytes()[..byte]
        .iter()
        .filter(|b| **b == b'\n')
        .count() as u32
        + 1
}

/// The original lines edits touch: from the first byte any edit replaces (or inserts at) to the
/// last byte any replaces.
pub(super) fn lines_of_edits(src: &Source<'_>, edits: &[Edit]) -> [u32; 2] {
    let start = edits.iter().map(|e| e.range.start).min().unwrap_or(0);
    let end = edits
        .iter()
        .map(|e| e.range.end.max(e.range.start + 1) - 1)
        .max()
        .unwrap_or(0);
    [line_of(src, start), line_of(src, end.max(start))]
}

/// Code for a one-line description: whitespace runs collapsed, cut at about 60 characters.
pub(super) fn quote(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= 60 {
        return flat;
    }
    let cut: String = flat.chars().take(57).collect();
    format!("{}...", cut.trim_end())
}

/// A deterministic choice among `n` forms for a site: the sum of its name's bytes modulo `n`.
pub(super) fn pick(name: &str, n: usize) -> usize {
    name.bytes().map(usize::from).sum::<usize>() % n.max(1)
}

/// The `pytest.raises(...)` (or unittest's `self.assertRaises*(...)`) call of a `with` statement
/// whose only item it is.
pub(super) fn with_raises_call<'t>(src: &Source<'_>, with: Node<'t>) -> Option<Node<'t>> {
    let clause = named_children(with)
        .into_iter()
        .find(|c| c.kind() == "with_clause")?;
    let items = named_children(clause);
    let [item] = items.as_slice() else {
        return None;
    };
    let value = item.child_by_field_name("value")?;
    let call = if value.kind() == "as_pattern" {
        value.named_child(0)?
    } else {
        value
    };
    let callee = callee_path(src, call).unwrap_or_default();
    (call.kind() == "call"
        && (callee == "pytest.raises" || callee.starts_with("self.assertRaises")))
    .then_some(call)
}
