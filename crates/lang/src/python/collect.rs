//! What pytest would collect from a Python source: module-level `test*` functions, `test*`
//! methods of `Test*` classes without `__init__` (nested ones too) and of `unittest.TestCase`
//! subclasses; and whether each runs, is skipped or is expected to fail, from its marks
//! (decorators, its classes' marks, `pytestmark`) and an imperative `pytest.skip(...)` opening its
//! body.

use tree_sitter::Node;

use super::tree::{
    body_statements, call_of_stmt, callee_path, decorators, definition_of, expression_of,
    statements, Def,
};
use crate::syntax::{named_children, Source, TestStatus};

/// A collected test, with its definition.
pub(super) struct TestDef<'t> {
    /// The test function.
    pub def: Def<'t>,
    /// `test_x` or `TestClass::test_x`.
    pub name: String,
    /// Whether it runs, from its marks.
    pub status: TestStatus,
}

impl TestDef<'_> {
    /// Whether the test runs (not skipped, not expected to fail).
    pub fn live(&self) -> bool {
        self.status == TestStatus::Live
    }
}

/// What a mark does to a test.
#[derive(Clone, PartialEq)]
enum Mark {
    Skip(String),
    Xfail(String),
}

/// Every collected test in source order.
pub(super) fn collect<'t>(src: &'t Source<'_>) -> Vec<TestDef<'t>> {
    let root = src.root();
    let mut out = Vec::new();
    if opted_out(src, root) {
        return out;
    }
    let from_unittest = unittest_names(src);
    let module_marks = pytestmark(src, root, &from_unittest);
    for stmt in visible(src, root) {
        let Some(def) = definition_of(stmt) else {
            continue;
        };
        let name = name_of(src, def);
        if def.kind() == "function_definition" && name.starts_with("test") {
            push_test(src, def, "", &module_marks, &from_unittest, &mut out);
        } else if def.kind() == "class_definition" {
            collect_class(src, def, "", &module_marks, &from_unittest, &mut out);
        }
    }
    out
}

/// The tests of a class (and of its nested test classes), when pytest collects the class.
fn collect_class<'t>(
    src: &'t Source<'_>,
    class: Node<'t>,
    prefix: &str,
    outer_marks: &[Mark],
    from_unittest: &[String],
    out: &mut Vec<TestDef<'t>>,
) {
    let name = name_of(src, class);
    let unittest = is_testcase(src, class);
    let Some(body) = class.child_by_field_name("body") else {
        return;
    };
    if !(unittest || name.starts_with("Test")) || opted_out(src, body) {
        return;
    }
    let defines_init = visible(src, body).iter().any(|s| {
        definition_of(*s)
            .is_some_and(|d| d.kind() == "function_definition" && name_of(src, d) == "__init__")
    });
    if defines_init && !unittest {
        return;
    }
    let mut marks = outer_marks.to_vec();
    marks.extend(decorator_marks(src, class, from_unittest));
    marks.extend(pytestmark(src, body, from_unittest));
    let prefix = format!("{prefix}{name}::");
    for stmt in visible(src, body) {
        let Some(def) = definition_of(stmt) else {
            continue;
        };
        if def.kind() == "function_definition" && name_of(src, def).starts_with("test") {
            push_test(src, def, &prefix, &marks, from_unittest, out);
        } else if def.kind() == "class_definition" && !unittest {
            collect_class(src, def, &prefix, &marks, from_unittest, out);
        }
    }
}

fn push_test<'t>(
    src: &'t Source<'_>,
    node: Node<'t>,
    prefix: &str,
    outer_marks: &[Mark],
    from_unittest: &[String],
    out: &mut Vec<TestDef<'t>>,
) {
    let Some(def) = Def::of(src, node) else {
        return;
    };
    let fixture = decorators(node).iter().any(|d| {
        d.named_child(0)
            .and_then(|e| callee_path(src, e))
            .is_some_and(|p| p == "pytest.fixture" || p == "fixture")
    });
    if fixture {
        return;
    }
    let mut marks = decorator_marks(src, node, from_unittest);
    marks.extend(outer_marks.iter().cloned());
    marks.extend(body_mark(src, &def));
    let skip = marks.iter().find_map(|m| match m {
        Mark::Skip(t) => Some(t.clone()),
        Mark::Xfail(_) => None,
    });
    let xfail = marks.iter().find_map(|m| match m {
        Mark::Xfail(t) => Some(t.clone()),
        Mark::Skip(_) => None,
    });
    let status = match (skip, xfail) {
        (Some(t), _) => TestStatus::Skipped(t),
        (None, Some(t)) => TestStatus::ExpectedFailure(t),
        (None, None) => TestStatus::Live,
    };
    out.push(TestDef {
        name: format!("{prefix}{}", def.name),
        def,
        status,
    });
}

/// The statements of a module or class body that define what its namespace ends up holding:
/// a definition later redefined under the same name is left out, as Python keeps the last.
fn visible<'t>(src: &Source<'_>, body: Node<'t>) -> Vec<Node<'t>> {
    let stmts = statements(body);
    let names: Vec<Option<&str>> = stmts
        .iter()
        .map(|s| definition_of(*s).map(|d| name_of(src, d)))
        .collect();
    stmts
        .iter()
        .enumerate()
        .filter(|(i, _)| match names[*i] {
            Some(n) => !names[i + 1..].contains(&Some(n)),
            None => true,
        })
        .map(|(_, s)| *s)
        .collect()
}

fn name_of<'a>(src: &Source<'a>, def: Node<'_>) -> &'a str {
    def.child_by_field_name("name")
        .map_or("", |n| src.text_of(n))
}

/// Whether a class derives from `unittest.TestCase` (or `IsolatedAsyncioTestCase`), which
/// pytest collects whatever its name.
fn is_testcase(src: &Source<'_>, class: Node<'_>) -> bool {
    class
        .child_by_field_name("superclasses")
        .map(named_children)
        .unwrap_or_default()
        .iter()
        .filter_map(|b| super::tree::dotted(src, *b))
        .any(|b| {
            b.rsplit('.')
                .next()
                .is_some_and(|l| l.ends_with("TestCase"))
        })
}

/// Whether a module or class body sets `__test__ = False`, which stops collection.
fn opted_out(src: &Source<'_>, body: Node<'_>) -> bool {
    statements(body)
        .iter()
        .any(|s| assignment(src, *s, "__test__").is_some_and(|v| v.kind() == "false"))
}

/// The value of `name = value` when `stmt` is that assignment.
fn assignment<'t>(src: &Source<'_>, stmt: Node<'t>, name: &str) -> Option<Node<'t>> {
    let a = expression_of(stmt).filter(|e| e.kind() == "assignment")?;
    let left = a.child_by_field_name("left")?;
    (src.text_of(left) == name).then(|| a.child_by_field_name("right"))?
}

/// The names a module imports from `unittest` (`from unittest import skip`).
fn unittest_names(src: &Source<'_>) -> Vec<String> {
    statements(src.root())
        .into_iter()
        .filter(|s| s.kind() == "import_from_statement")
        .filter(|s| {
            s.child_by_field_name("module_name")
                .is_some_and(|m| src.text_of(m) == "unittest")
        })
        .flat_map(|s| {
            let mut c = s.walk();
            s.children_by_field_name("name", &mut c)
                .map(|n| src.text_of(n).to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The skip or xfail mark an expression is (`pytest.mark.skip(...)`, `unittest.skipIf(...)`).
fn mark_of(src: &Source<'_>, expr: Node<'_>, from_unittest: &[String], text: &str) -> Option<Mark> {
    let path = callee_path(src, expr)?;
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let pytest = path
        .strip_prefix("pytest.mark.")
        .or_else(|| path.strip_prefix("mark."));
    if let Some(name) = pytest {
        return match name {
            "skip" | "skipif" => Some(Mark::Skip(text)),
            "xfail" => Some(Mark::Xfail(text)),
            _ => None,
        };
    }
    let name = match path.strip_prefix("unittest.") {
        Some(n) => n,
        None if from_unittest.contains(&path) => path.as_str(),
        None => return None,
    };
    match name {
        "skip" | "skipIf" | "skipUnless" => Some(Mark::Skip(text)),
        "expectedFailure" => Some(Mark::Xfail(text)),
        _ => None,
    }
}

/// The marks of a definition's decorators.
fn decorator_marks(src: &Source<'_>, def: Node<'_>, from_unittest: &[String]) -> Vec<Mark> {
    decorators(def)
        .into_iter()
        .filter_map(|d| {
            let expr = d.named_child(0)?;
            mark_of(src, expr, from_unittest, src.text_of(d))
        })
        .collect()
}

/// The marks of a module's or class's `pytestmark = <mark>` or `= [<mark>, ...]`.
fn pytestmark(src: &Source<'_>, body: Node<'_>, from_unittest: &[String]) -> Vec<Mark> {
    let mut marks = Vec::new();
    for stmt in statements(body) {
        let Some(value) = assignment(src, stmt, "pytestmark") else {
            continue;
        };
        let items = if matches!(value.kind(), "list" | "tuple") {
            named_children(value)
        } else {
            vec![value]
        };
        marks.extend(
            items
                .into_iter()
                .filter_map(|i| mark_of(src, i, from_unittest, src.text_of(i))),
        );
    }
    marks
}

/// The imperative mark a test body opens with: `pytest.skip(...)`, `self.skipTest(...)` or
/// `pytest.xfail(...)` as its first statement after the docstring.
fn body_mark(src: &Source<'_>, def: &Def<'_>) -> Option<Mark> {
    let first = *body_statements(def.body).first()?;
    let call = call_of_stmt(first)?;
    let text = src
        .text_of(first)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    match callee_path(src, call)?.as_str() {
        "pytest.skip" | "self.skipTest" => Some(Mark::Skip(text)),
        "pytest.xfail" => Some(Mark::Xfail(text)),
        _ => None,
    }
}
