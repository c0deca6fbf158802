//! One walk over a file's items: every function with its qualified name, whether it is test code,
//! and which functions libtest collects as tests (and whether it runs them).

use tree_sitter::Node;

use crate::syntax::{named_children, Source, Test, TestStatus};

/// A function item as the walk found it.
pub(crate) struct FnItem<'t> {
    /// The `function_item` node.
    pub node: Node<'t>,
    /// Its outer attributes (`#[test]`, `#[must_use]`), in source order.
    pub attrs: Vec<Node<'t>>,
    /// As written.
    pub name: String,
    /// Enclosing modules, impl types, traits and functions joined by `::`.
    pub qualified: String,
    /// The inline modules it is in, outermost first (a test's name is these and its own).
    pub mod_path: Vec<String>,
    /// Test code: a test function, or anything under `#[cfg(test)]` or inside a test function.
    pub in_test: bool,
    /// Under a never-true `#[cfg(any())]`: compiled by no one.
    pub never: bool,
    /// Where libtest would look for a test: at the top of the file or of an inline module.
    pub module_level: bool,
    /// The body `block`.
    pub body: Node<'t>,
}

impl FnItem<'_> {
    /// From its first attribute to its closing brace.
    pub fn lines(&self, src: &Source<'_>) -> [u32; 2] {
        let first = self.attrs.first().copied().unwrap_or(self.node);
        [src.lines_of(first)[0], src.lines_of(self.node)[1]]
    }

    /// Its attribute marking it a test (`#[test]`, `#[tokio::test]`, `#[rstest]`), if any.
    pub fn test_attr(&self, src: &Source<'_>) -> Option<Node<'_>> {
        self.attrs
            .iter()
            .copied()
            .find(|a| attr_path(src, *a).is_some_and(|p| p.ends_with("test")))
    }

    /// Its attribute with this exact path (`ignore`, `should_panic`), if any.
    pub fn attr(&self, src: &Source<'_>, path: &str) -> Option<Node<'_>> {
        self.attrs
            .iter()
            .copied()
            .find(|a| attr_path(src, *a) == Some(path))
    }
}

/// Item kinds whose insides are not the enclosing function's own code.
pub(crate) fn is_item(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "function_item" | "impl_item" | "mod_item" | "trait_item" | "macro_definition"
    )
}

/// Every function item of the file, in source order.
pub(crate) fn fn_items<'t>(src: &'t Source<'_>) -> Vec<FnItem<'t>> {
    let mut out = Vec::new();
    let root = Context {
        path: Vec::new(),
        mod_path: Vec::new(),
        in_test: false,
        never: false,
    };
    walk(src, src.root(), &root, &mut out);
    out
}

/// The tests libtest would collect, each with the function it is.
pub(crate) fn collected<'t>(src: &'t Source<'_>) -> Vec<(FnItem<'t>, Test)> {
    fn_items(src)
        .into_iter()
        .filter(|f| f.module_level && !f.never && f.test_attr(src).is_some())
        .map(|f| {
            let mut name = f.mod_path.clone();
            name.push(f.name.clone());
            let status = match f.attr(src, "ignore") {
                Some(mark) => TestStatus::Skipped(src.text_of(mark).to_string()),
                None => TestStatus::Live,
            };
            let test = Test {
                name: name.join("::"),
                lines: f.lines(src),
                body: super::body_range(src, f.body),
                status,
            };
            (f, test)
        })
        .collect()
}

/// What the walk knows about where it is.
#[derive(Clone)]
struct Context {
    path: Vec<String>,
    mod_path: Vec<String>,
    in_test: bool,
    never: bool,
}

impl Context {
    fn inside(&self, segment: &str) -> Context {
        let mut c = self.clone();
        c.path.push(segment.to_string());
        c
    }
}

fn walk<'t>(src: &'t Source<'_>, node: Node<'t>, ctx: &Context, out: &mut Vec<FnItem<'t>>) {
    for child in named_children(node) {
        if !is_item(child) {
            walk(src, child, ctx, out);
            continue;
        }
        let attrs = outer_attrs(child);
        let mut inner = ctx.clone();
        inner.in_test |= attrs.iter().any(|a| is_cfg_test(src, *a));
        inner.never |= attrs.iter().any(|a| is_cfg_never(src, *a));
        match child.kind() {
            "mod_item" => {
                let name = field_text(src, child, "name");
                let mut inner = inner.inside(name);
                inner.mod_path.push(name.to_string());
                if let Some(body) = child.child_by_field_name("body") {
                    for a in named_children(body) {
                        if a.kind() == "inner_attribute_item" {
                            inner.in_test |= is_cfg_test(src, a);
                            inner.never |= is_cfg_never(src, a);
                        }
                    }
                    walk(src, body, &inner, out);
                }
            }
            "impl_item" | "trait_item" => {
                let named = child
                    .child_by_field_name(if child.kind() == "impl_item" {
                        "type"
                    } else {
                        "name"
                    })
                    .map_or("", |t| type_name(src, t));
                if let Some(body) = child.child_by_field_name("body") {
                    walk(src, body, &inner.inside(named), out);
                }
            }
            "function_item" => function(src, child, attrs, inner, out),
            _ => walk(src, child, ctx, out),
        }
    }
}

fn function<'t>(
    src: &'t Source<'_>,
    node: Node<'t>,
    attrs: Vec<Node<'t>>,
    mut ctx: Context,
    out: &mut Vec<FnItem<'t>>,
) {
    let Some(body) = node.child_by_field_name("body") else {
        return;
    };
    let name = field_text(src, node, "name").to_string();
    let mut qualified = ctx.path.clone();
    qualified.push(name.clone());
    let module_level = node.parent().is_some_and(|p| {
        p.kind() == "source_file"
            || (p.kind() == "declaration_list"
                && p.parent().is_some_and(|m| m.kind() == "mod_item"))
    });
    let item = FnItem {
        node,
        attrs,
        name: name.clone(),
        qualified: qualified.join("::"),
        mod_path: ctx.mod_path.clone(),
        in_test: ctx.in_test,
        never: ctx.never,
        module_level,
        body,
    };
    ctx.in_test |= item.test_attr(src).is_some();
    let nested = ctx.inside(&name);
    out.push(FnItem {
        in_test: ctx.in_test,
        ..item
    });
    walk(src, body, &nested, out);
}

/// The outer attributes written before an item (comments between them skipped), in source order.
fn outer_attrs(item: Node<'_>) -> Vec<Node<'_>> {
    let mut attrs = Vec::new();
    let mut prev = item.prev_named_sibling();
    while let Some(p) = prev {
        match p.kind() {
            "attribute_item" => attrs.push(p),
            "line_comment" | "block_comment" => {}
            _ => break,
        }
        prev = p.prev_named_sibling();
    }
    attrs.reverse();
    attrs
}

/// An attribute's path (`test`, `tokio::test`, `cfg`).
fn attr_path<'a>(src: &Source<'a>, attr_item: Node<'_>) -> Option<&'a str> {
    let attr = named_children(attr_item)
        .into_iter()
        .find(|n| n.kind() == "attribute")?;
    Some(src.text_of(attr.named_child(0)?))
}

/// A `cfg` attribute's predicate with its whitespace removed (`any()`, `test`).
fn cfg_predicate(src: &Source<'_>, attr_item: Node<'_>) -> Option<String> {
    let attr = named_children(attr_item)
        .into_iter()
        .find(|n| n.kind() == "attribute")?;
    if src.text_of(attr.named_child(0)?) != "cfg" {
        return None;
    }
    let args = src.text_of(attr.child_by_field_name("arguments")?);
    let flat: String = args.chars().filter(|c| !c.is_whitespace()).collect();
    Some(flat[1..flat.len().saturating_sub(1).max(1)].to_string())
}

/// `#[cfg(test)]`, also `#[cfg(all(test, ..))]`.
fn is_cfg_test(src: &Source<'_>, attr_item: Node<'_>) -> bool {
    cfg_predicate(src, attr_item).is_some_and(|p| {
        p == "test"
            || (p.starts_with("all(")
                && !p.contains("not(")
                && p[4..].split([',', ')']).any(|term| term == "test"))
    })
}

/// A cfg that is never true: `any()` (also spelled `not(all())`).
fn is_cfg_never(src: &Source<'_>, attr_item: Node<'_>) -> bool {
    cfg_predicate(src, attr_item).is_some_and(|p| matches!(p.as_str(), "any()" | "not(all())"))
}

fn field_text<'a>(src: &Source<'a>, node: Node<'_>, field: &str) -> &'a str {
    node.child_by_field_name(field)
        .map_or("", |n| src.text_of(n))
}

/// The name of an impl's type without generics or references (`TokenBucket` for
/// `TokenBucket<C>`, `C` for `&C`).
fn type_name<'a>(src: &Source<'a>, ty: Node<'_>) -> &'a str {
    match ty.kind() {
        "generic_type" | "reference_type" | "pointer_type" => ty
            .child_by_field_name("type")
            .map_or(src.text_of(ty), |t| type_name(src, t)),
        _ => src.text_of(ty),
    }
}
