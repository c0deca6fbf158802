//! The operators that rewrite a whole function body: StubRaise, StubDefault, and ReturnEarly.

use tree_sitter::Node;

use super::{is_comment, macro_name, mutation, quote, statements, FnItem};
use crate::edit::Edit;
use crate::operator::{Mutation, Operator};
use crate::syntax::{named_children, Source};

/// The not-implemented bodies StubRaise writes, chosen per site; the first is neutralize's.
pub(crate) const RAISE_FORMS: [&str; 4] = [
    "todo!()",
    "unimplemented!()",
    "unimplemented!(\"not yet\")",
    "panic!(\"not implemented\")",
];

/// The body replaced by a not-implemented panic (the form chosen by the qualified name).
pub(crate) fn stub_raise(src: &Source<'_>, f: &FnItem<'_>) -> Option<Mutation> {
    let form = RAISE_FORMS[super::pick(&f.qualified, RAISE_FORMS.len())];
    let edit = raise_edit(src, f, form)?;
    let description = format!("`{}`: the body replaced by `{form}`", f.qualified);
    Some(mutation(
        src,
        Operator::StubRaise,
        &f.qualified,
        description,
        vec![edit],
    ))
}

/// The edit that makes a body `form`, leading comments kept; `None` for an empty body or one that
/// is already a stub.
pub(crate) fn raise_edit(src: &Source<'_>, f: &FnItem<'_>, form: &str) -> Option<Edit> {
    let stmts = statements(f.body);
    let first = stmts.first()?;
    if is_stub_body(src, f.body) {
        return None;
    }
    let end = super::body_range(src, f.body).end;
    Some(Edit::new(first.start_byte()..end, form))
}

/// Whether a body is only a not-implemented panic already.
pub(crate) fn is_stub_body(src: &Source<'_>, body: Node<'_>) -> bool {
    let stmts = statements(body);
    let [only] = stmts.as_slice() else {
        return false;
    };
    let e = super::inner_expression(*only);
    match macro_name(src, e) {
        Some("todo" | "unimplemented") => true,
        Some("panic") => {
            let text = src.text_of(e).to_ascii_lowercase();
            text.contains("not implemented") || text.contains("not yet")
        }
        _ => false,
    }
}

/// The body replaced by a quiet default of its return type, where that type has one.
pub(crate) fn stub_default(src: &Source<'_>, f: &FnItem<'_>) -> Option<Mutation> {
    if statements(f.body).is_empty() || is_stub_body(src, f.body) {
        return None;
    }
    // `Default::default()` in `impl Default`'s own `default` would call itself.
    if f.name == "default" {
        return None;
    }
    let value = match f.node.child_by_field_name("return_type") {
        None => String::new(),
        Some(ty) => default_of(src, ty, f)?,
    };
    let range = super::body_range(src, f.body);
    if src.text[range.clone()].trim() == value {
        return None;
    }
    let (edit, said) = if value.is_empty() || value == "()" {
        let inside = f.body.start_byte() + 1..f.body.end_byte().saturating_sub(1);
        (Edit::new(inside, ""), "emptied".to_string())
    } else {
        let first = statements(f.body).first()?.start_byte();
        (
            Edit::new(first..range.end, value.clone()),
            format!("replaced by `{value}`"),
        )
    };
    let description = format!("`{}`: the body {said}", f.qualified);
    Some(mutation(
        src,
        Operator::StubDefault,
        &f.qualified,
        description,
        vec![edit],
    ))
}

const INTEGERS: [&str; 12] = [
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
];

/// A plausible quiet value of a type, `None` where it has none that would likely compile.
fn default_of(src: &Source<'_>, ty: Node<'_>, f: &FnItem<'_>) -> Option<String> {
    let text = src.text_of(ty);
    let generic_base = || {
        ty.child_by_field_name("type")
            .map(|t| src.text_of(t).rsplit("::").next().unwrap_or(""))
    };
    let args = || {
        ty.child_by_field_name("type_arguments")
            .map(named_children)
            .unwrap_or_default()
    };
    match ty.kind() {
        "unit_type" => Some("()".into()),
        "primitive_type" => match text {
            "bool" => Some("false".into()),
            "f32" | "f64" => Some("0.0".into()),
            t if INTEGERS.contains(&t) => Some("0".into()),
            "char" => Some("'\\0'".into()),
            "str" => None,
            _ => None,
        },
        "tuple_type" => {
            let parts: Option<Vec<String>> = named_children(ty)
                .into_iter()
                .map(|t| default_of(src, t, f))
                .collect();
            Some(format!("({})", parts?.join(", ")))
        }
        "reference_type" => match ty.child_by_field_name("type").map(|t| t.kind()) {
            Some("primitive_type") if text.ends_with("str") => Some("\"\"".into()),
            Some("array_type") => Some("&[]".into()),
            _ => None,
        },
        "generic_type" => match generic_base()? {
            "Option" => Some("None".into()),
            "Vec" => Some("Vec::new()".into()),
            "HashMap" | "HashSet" | "BTreeMap" | "BTreeSet" | "VecDeque" => {
                Some("Default::default()".into())
            }
            "Result" => {
                let ok = args().into_iter().find(|a| !is_comment(*a))?;
                Some(format!("Ok({})", default_of(src, ok, f)?))
            }
            name => named_default(src, name, f),
        },
        "type_identifier" | "scoped_type_identifier" => match text {
            "String" => Some("String::new()".into()),
            // `fmt::Result`, `io::Result<()>`'s unit alias: `Result<(), _>`.
            t if t.rsplit("::").next() == Some("Result") => Some("Ok(())".into()),
            _ => named_default(src, text.rsplit("::").next().unwrap_or(text), f),
        },
        _ => None,
    }
}

/// `Default::default()` for a named type unless the file shows it has no `Default`: it defines the
/// type without deriving or implementing it, or the name is a generic parameter of the function
/// or its impl.
fn named_default(src: &Source<'_>, name: &str, f: &FnItem<'_>) -> Option<String> {
    let name = if name == "Self" {
        self_type(src, f)?
    } else {
        name.to_string()
    };
    if is_type_parameter(src, f, &name) {
        return None;
    }
    let root = src.root();
    let mut defined = false;
    let mut has_default = false;
    let containers = src
        .nodes()
        .into_iter()
        .filter(|n| n.kind() == "declaration_list");
    for node in std::iter::once(root).chain(containers) {
        for item in named_children(node) {
            let named = |field: &str| item.child_by_field_name(field).map(|t| src.text_of(t));
            match item.kind() {
                "struct_item" | "enum_item" if named("name") == Some(name.as_str()) => {
                    defined = true;
                    has_default |= derives_default(src, item);
                }
                "impl_item"
                    if named("trait").is_some_and(|t| t.ends_with("Default"))
                        && named("type")
                            .is_some_and(|t| t.split('<').next() == Some(name.as_str())) =>
                {
                    has_default = true;
                }
                _ => {}
            }
        }
    }
    (!defined || has_default).then(|| "Default::default()".to_string())
}

/// Whether a struct or enum item derives `Default`.
fn derives_default(src: &Source<'_>, item: Node<'_>) -> bool {
    let mut prev = item.prev_named_sibling();
    while let Some(p) = prev {
        match p.kind() {
            "attribute_item" => {
                let t = src.text_of(p);
                if t.contains("derive") && t.contains("Default") {
                    return true;
                }
            }
            "line_comment" | "block_comment" => {}
            _ => break,
        }
        prev = p.prev_named_sibling();
    }
    false
}

/// The type an impl method's `Self` is.
fn self_type(src: &Source<'_>, f: &FnItem<'_>) -> Option<String> {
    let mut up = f.node.parent();
    while let Some(n) = up {
        if n.kind() == "impl_item" {
            let ty = n.child_by_field_name("type")?;
            let base = ty.child_by_field_name("type").unwrap_or(ty);
            return Some(src.text_of(base).to_string());
        }
        up = n.parent();
    }
    None
}

/// Whether `name` is a type parameter of the function or of an impl around it.
fn is_type_parameter(src: &Source<'_>, f: &FnItem<'_>, name: &str) -> bool {
    let mut at = Some(f.node);
    while let Some(n) = at {
        if let Some(params) = n.child_by_field_name("type_parameters") {
            let hit = named_children(params).into_iter().any(|p| {
                p.child_by_field_name("name")
                    .is_some_and(|x| src.text_of(x) == name)
            });
            if hit {
                return true;
            }
        }
        at = n.parent();
    }
    false
}

/// A bare `return;` before the last statement of a `()` function with two statements or more.
pub(crate) fn return_early(src: &Source<'_>, f: &FnItem<'_>) -> Option<Mutation> {
    if let Some(ty) = f.node.child_by_field_name("return_type") {
        if ty.kind() != "unit_type" {
            return None;
        }
    }
    let stmts = statements(f.body);
    if stmts.len() < 2 {
        return None;
    }
    let last = *stmts.last()?;
    let at = last.start_byte();
    let line_start = src.line_start(at);
    let edit = if src.text[line_start..at].trim().is_empty() {
        Edit::insert(line_start, format!("{}return;\n", src.indent_at(at)))
    } else {
        Edit::insert(at, "return; ")
    };
    let description = format!(
        "`{}`: `return;` inserted before its last statement `{}`",
        f.qualified,
        quote(src.text_of(last))
    );
    let mut m = mutation(
        src,
        Operator::ReturnEarly,
        &f.qualified,
        description,
        vec![edit],
    );
    m.lines = src.lines_of(last);
    m.lines[1] = m.lines[0];
    Some(m)
}
