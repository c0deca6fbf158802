//! Function and method definitions: declarations, function expressions and arrow functions bound
//! to a name, class methods (`Class.method`) and methods of object literals bound to a name
//! (`obj.method`).

use tree_sitter::Node;

use super::nodes::{body_range, is_function_value};
use crate::syntax::{Function, Source};

/// A definition and the nodes the operators edit.
pub(super) struct Def<'t> {
    /// The function node (`function_declaration`, `arrow_function`, `method_definition`...).
    pub node: Node<'t>,
    /// Its body: a `statement_block`, or the expression of an arrow function.
    pub body: Node<'t>,
    /// What `functions` reports of it.
    pub function: Function,
}

impl Def<'_> {
    /// Whether the body is a block (not an arrow function's expression).
    pub fn has_block(&self) -> bool {
        self.body.kind() == "statement_block"
    }

    /// Whether this is a constructor of a class that extends another.
    pub fn is_derived_constructor(&self) -> bool {
        self.node.kind() == "method_definition"
            && self.function.name == "constructor"
            && self
                .node
                .parent()
                .and_then(|body| body.parent())
                .is_some_and(|class| {
                    crate::syntax::named_children(class)
                        .iter()
                        .any(|c| c.kind() == "class_heritage")
                })
    }
}

/// Every definition in `src`, in source order (nested ones too).
pub(super) fn find<'t>(src: &'t Source<'_>) -> Vec<Def<'t>> {
    src.nodes()
        .into_iter()
        .filter_map(|node| definition(src, node))
        .collect()
}

fn definition<'t>(src: &Source<'_>, node: Node<'t>) -> Option<Def<'t>> {
    let (name, owner, outer) = match node.kind() {
        "function_declaration" | "generator_function_declaration" => {
            let name = src.text_of(node.child_by_field_name("name")?).to_string();
            (name, None, node)
        }
        "method_definition" => {
            let name = src.text_of(node.child_by_field_name("name")?).to_string();
            (name, owner_of_member(src, node)?, node)
        }
        kind if is_function_value(kind) => bound_name(src, node)?,
        _ => return None,
    };
    let body = node.child_by_field_name("body")?;
    let outer = match outer.parent() {
        Some(p) if p.kind() == "export_statement" => p,
        _ => outer,
    };
    let qualified = match owner {
        Some(owner) => format!("{owner}.{name}"),
        None => name.clone(),
    };
    Some(Def {
        node,
        body,
        function: Function {
            name,
            qualified,
            lines: src.lines_of(outer),
            body: body_range(body),
        },
    })
}

/// The name a function value is bound to, its owner (class or object), and the node that spans
/// the whole definition; `None` for an anonymous function (a callback).
fn bound_name<'t>(src: &Source<'_>, node: Node<'t>) -> Option<(String, Option<String>, Node<'t>)> {
    let parent = node.parent()?;
    match parent.kind() {
        "variable_declarator" => {
            let name = parent.child_by_field_name("name")?;
            if name.kind() != "identifier" {
                return None;
            }
            let decl = parent.parent().filter(|d| d.named_child_count() == 1);
            Some((src.text_of(name).to_string(), None, decl.unwrap_or(parent)))
        }
        "assignment_expression" => {
            let left = parent.child_by_field_name("left")?;
            let outer = parent
                .parent()
                .filter(|s| s.kind() == "expression_statement")
                .unwrap_or(parent);
            match left.kind() {
                "identifier" => Some((src.text_of(left).to_string(), None, outer)),
                "member_expression" => {
                    let (owner, name) = member_path(src, left)?;
                    Some((name, owner, outer))
                }
                _ => None,
            }
        }
        "pair" => {
            let key = parent.child_by_field_name("key")?;
            let owner = object_binding(src, parent.parent()?)?;
            Some((property_name(src, key), owner, parent))
        }
        "field_definition" => {
            let key = parent.child_by_field_name("property")?;
            Some((
                property_name(src, key),
                owner_of_member(src, parent)?,
                parent,
            ))
        }
        "export_statement" => Some(("default".to_string(), None, node)),
        _ => {
            let name = node.child_by_field_name("name")?;
            Some((src.text_of(name).to_string(), None, node))
        }
    }
}

/// `Foo.prototype.bar` -> (`Foo`, `bar`); `module.exports.parse` / `exports.parse` -> (none,
/// `parse`); `obj.handler` -> (`obj`, `handler`).
fn member_path(src: &Source<'_>, member: Node<'_>) -> Option<(Option<String>, String)> {
    let name = src
        .text_of(member.child_by_field_name("property")?)
        .to_string();
    let object: String = src
        .text_of(member.child_by_field_name("object")?)
        .split_whitespace()
        .collect();
    let object = object.strip_suffix(".prototype").unwrap_or(&object);
    let owner = match object {
        "module.exports" | "exports" => None,
        other => Some(other.to_string()),
    };
    Some((owner, name))
}

/// A property key as a reader names it: quotes dropped from a string key.
fn property_name(src: &Source<'_>, key: Node<'_>) -> String {
    super::nodes::literal_string(src, key).unwrap_or_else(|| src.text_of(key).to_string())
}

/// The owner of a method or field: `Some(Some(class))` in a named class (or a class expression
/// bound to a name), `Some(None)` in an anonymous class or an object exported as a whole, `None`
/// in an object literal bound to no name (its methods are not definitions a reader names).
fn owner_of_member(src: &Source<'_>, member: Node<'_>) -> Option<Option<String>> {
    let container = member.parent()?;
    match container.kind() {
        "class_body" => {
            let class = container.parent()?;
            if let Some(name) = class.child_by_field_name("name") {
                return Some(Some(src.text_of(name).to_string()));
            }
            Some(object_binding(src, class).flatten())
        }
        "object" => object_binding(src, container),
        _ => Some(None),
    }
}

/// The name an object literal or class expression is bound to: `Some(Some(obj))` for
/// `const obj = {..}` or `obj = {..}`, `Some(None)` for `module.exports = {..}` and
/// `export default {..}`, `None` when it is bound to nothing (an argument, a nested value).
fn object_binding(src: &Source<'_>, value: Node<'_>) -> Option<Option<String>> {
    let parent = value.parent()?;
    match parent.kind() {
        "variable_declarator" => {
            let name = parent.child_by_field_name("name")?;
            (name.kind() == "identifier").then(|| Some(src.text_of(name).to_string()))
        }
        "assignment_expression" => {
            let left = parent.child_by_field_name("left")?;
            let text: String = src.text_of(left).split_whitespace().collect();
            match text.as_str() {
                "module.exports" | "exports" => Some(None),
                _ => Some(Some(text)),
            }
        }
        "export_statement" => Some(None),
        _ => None,
    }
}
