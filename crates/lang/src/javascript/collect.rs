//! The tests `node:test` collects: calls of `test` / `it` (with `.skip`, `.todo`, `.only`),
//! nested in `describe` / `suite` calls, titled by a literal; their statuses; and the regions of
//! the file that are test code (every test, suite and hook call, titled or not).

use std::ops::Range;

use tree_sitter::Node;

use super::nodes::{
    arguments, body_range, descendants, is_function_value, kids, literal_string, statements,
};
use crate::syntax::{Source, Test, TestStatus};

/// A collected test and the nodes the test operators edit.
pub(super) struct TestSite<'t> {
    /// The statement holding the call (an expression statement), or the call itself.
    pub stmt: Node<'t>,
    /// The callee: `test`, `it.skip`, `test.only`...
    pub callee: Node<'t>,
    /// The title argument.
    pub title: Node<'t>,
    /// The options object, if one is given.
    pub options: Option<Node<'t>>,
    /// The callback's body (a block or an arrow function's expression), when it is inline.
    pub body: Option<Node<'t>>,
    /// A subtest (`t.test(..)`): marked by options, as the test context has no `.skip`.
    pub subtest: bool,
    /// What `tests` reports of it.
    pub test: Test,
}

/// What the file's test calls hold.
pub(super) struct Collected<'t> {
    /// The tests with a literal title, in source order.
    pub tests: Vec<TestSite<'t>>,
    /// The byte ranges of every test, suite and hook call.
    pub regions: Vec<Range<usize>>,
}

impl Collected<'_> {
    /// Whether `node` lies in test code.
    pub fn in_region(&self, node: Node<'_>) -> bool {
        let r = node.byte_range();
        self.regions
            .iter()
            .any(|g| g.start <= r.start && r.end <= g.end)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Test,
    Suite,
    Hook,
}

/// The marks a suite passes to the tests inside it.
#[derive(Clone, Default)]
struct Context {
    titles: Vec<String>,
    skip: Option<String>,
    todo: Option<String>,
}

/// Every test call of `src`, with the regions of test code.
pub(super) fn find<'t>(src: &'t Source<'_>) -> Collected<'t> {
    let mut out = Collected {
        tests: Vec::new(),
        regions: Vec::new(),
    };
    visit(src, src.root(), &Context::default(), &mut out);
    out
}

fn visit<'t>(src: &Source<'_>, node: Node<'t>, ctx: &Context, out: &mut Collected<'t>) {
    if node.kind() == "call_expression" {
        if let Some((kind, modifier)) = classify(src, node) {
            out.regions.push(node.byte_range());
            match kind {
                Kind::Test => collect_test(src, node, modifier, false, ctx, out),
                Kind::Suite => collect_suite(src, node, modifier, ctx, out),
                Kind::Hook => {}
            }
            return;
        }
    }
    // A call inside a function runs only if something calls that function: not collected.
    if is_function_value(node.kind())
        || matches!(
            node.kind(),
            "function_declaration" | "generator_function_declaration" | "method_definition"
        )
    {
        return;
    }
    for child in crate::syntax::named_children(node) {
        visit(src, child, ctx, out);
    }
}

/// Whether a call is a test, a suite or a hook, and its modifier (`skip`, `todo`, `only`).
fn classify<'a>(src: &Source<'a>, call: Node<'_>) -> Option<(Kind, Option<&'a str>)> {
    let callee = call.child_by_field_name("function")?;
    let (base, modifier) = match callee.kind() {
        "identifier" => (src.text_of(callee), None),
        "member_expression" => {
            let object = callee.child_by_field_name("object")?;
            let property = src.text_of(callee.child_by_field_name("property")?);
            if object.kind() != "identifier" || !matches!(property, "skip" | "todo" | "only") {
                return None;
            }
            (src.text_of(object), Some(property))
        }
        _ => return None,
    };
    let kind = match base {
        "test" | "it" => Kind::Test,
        "describe" | "suite" => Kind::Suite,
        "before" | "after" | "beforeEach" | "afterEach" if modifier.is_none() => Kind::Hook,
        _ => return None,
    };
    // `test(x)` in code is a call of some function named test: a test call has a title or a
    // callback.
    let args = arguments(call);
    let titled = args
        .first()
        .is_some_and(|a| matches!(a.kind(), "string" | "template_string"));
    let callback = args.iter().any(|a| is_function_value(a.kind()));
    (callback || (titled && kind != Kind::Hook)).then_some((kind, modifier))
}

/// The parts of a test or suite call: title, options, callback.
struct Parts<'t> {
    title: Node<'t>,
    options: Option<Node<'t>>,
    callback: Option<Node<'t>>,
}

fn parts<'t>(call: Node<'t>) -> Option<Parts<'t>> {
    let args = arguments(call);
    let title = *args.first()?;
    let options = args.iter().skip(1).find(|a| a.kind() == "object").copied();
    let callback = args.last().filter(|a| is_function_value(a.kind())).copied();
    Some(Parts {
        title,
        options,
        callback,
    })
}

/// A call's own marks: (skip, todo), each the mark as written.
fn own_marks(
    src: &Source<'_>,
    call: Node<'_>,
    modifier: Option<&str>,
    parts: &Parts<'_>,
) -> (Option<String>, Option<String>) {
    let callee = call
        .child_by_field_name("function")
        .map(|c| src.text_of(c).to_string());
    let mut skip = None;
    let mut todo = None;
    match modifier {
        Some("skip") => skip = callee,
        Some("todo") => todo = callee,
        _ => {}
    }
    if let Some(options) = parts.options {
        for pair in kids(options).into_iter().filter(|p| p.kind() == "pair") {
            let (Some(key), Some(value)) = (
                pair.child_by_field_name("key"),
                pair.child_by_field_name("value"),
            ) else {
                continue;
            };
            let falsy = matches!(
                src.text_of(value),
                "false" | "0" | "null" | "undefined" | "''" | "\"\"" | "``"
            );
            let mark = Some(src.text_of(pair).to_string());
            match src.text_of(key) {
                "skip" if !falsy && skip.is_none() => skip = mark,
                "todo" if !falsy && todo.is_none() => todo = mark,
                _ => {}
            }
        }
    }
    if let Some((method, text)) = parts.callback.and_then(|f| context_call(src, f)) {
        match method {
            "skip" if skip.is_none() => skip = Some(text),
            "todo" if todo.is_none() => todo = Some(text),
            _ => {}
        }
    }
    (skip, todo)
}

/// A callback whose first statement is `t.skip(..)` or `t.todo(..)` (`t` its first parameter):
/// the method and the call as written.
fn context_call<'a>(src: &Source<'a>, callback: Node<'_>) -> Option<(&'a str, String)> {
    let param = context_param(callback)?;
    let body = callback.child_by_field_name("body")?;
    if body.kind() != "statement_block" {
        return None;
    }
    let call = super::nodes::statement_call(*statements(body).first()?)?;
    let callee = call.child_by_field_name("function")?;
    if callee.kind() != "member_expression" {
        return None;
    }
    let object = callee.child_by_field_name("object")?;
    let method = src.text_of(callee.child_by_field_name("property")?);
    (src.text_of(object) == src.text_of(param) && matches!(method, "skip" | "todo"))
        .then(|| (method, src.text_of(call).to_string()))
}

/// A test call (`subtest`: a `t.test(..)` inside another test). A test with subtests is not a
/// test itself (`node --test` reports its subtests, `parent > sub`): its subtests are collected
/// in its place, with its marks.
fn collect_test<'t>(
    src: &Source<'_>,
    call: Node<'t>,
    modifier: Option<&str>,
    subtest: bool,
    ctx: &Context,
    out: &mut Collected<'t>,
) {
    let Some(parts) = parts(call) else { return };
    let Some(title) = literal_string(src, parts.title) else {
        return;
    };
    let (skip, todo) = own_marks(src, call, modifier, &parts);
    let (skip, todo) = (skip.or(ctx.skip.clone()), todo.or(ctx.todo.clone()));
    let mut titles = ctx.titles.clone();
    titles.push(title);
    let subtests = parts
        .callback
        .map(|f| subtest_calls(src, f))
        .unwrap_or_default();
    if !subtests.is_empty() {
        let inner = Context { titles, skip, todo };
        for sub in subtests {
            collect_test(src, sub, None, true, &inner, out);
        }
        return;
    }
    let status = match (skip, todo) {
        (Some(mark), _) => TestStatus::Skipped(mark),
        (None, Some(mark)) => TestStatus::ExpectedFailure(mark),
        (None, None) => TestStatus::Live,
    };
    let stmt = call
        .parent()
        .map(|p| {
            if p.kind() == "await_expression" {
                p.parent().unwrap_or(p)
            } else {
                p
            }
        })
        .filter(|p| p.kind() == "expression_statement")
        .unwrap_or(call);
    let body = parts.callback.and_then(|f| f.child_by_field_name("body"));
    let body_bytes = body.map_or(call.end_byte()..call.end_byte(), body_range);
    let Some(callee) = call.child_by_field_name("function") else {
        return;
    };
    out.tests.push(TestSite {
        stmt,
        callee,
        title: parts.title,
        options: parts.options,
        body,
        subtest,
        test: Test {
            name: titles.join(" > "),
            lines: src.lines_of(stmt),
            body: body_bytes,
            status,
        },
    });
}

/// The callback's first parameter, when it is a plain name (`t`).
fn context_param(callback: Node<'_>) -> Option<Node<'_>> {
    let param = match callback.child_by_field_name("parameter") {
        Some(p) => p,
        None => *kids(callback.child_by_field_name("parameters")?).first()?,
    };
    (param.kind() == "identifier").then_some(param)
}

/// The outermost `t.test(..)` calls in a test's callback (`t` its first parameter), wherever
/// they are (awaited, in a loop, in a helper closure).
fn subtest_calls<'t>(src: &Source<'_>, callback: Node<'t>) -> Vec<Node<'t>> {
    let (Some(param), Some(body)) = (
        context_param(callback),
        callback.child_by_field_name("body"),
    ) else {
        return Vec::new();
    };
    let context = src.text_of(param);
    let calls: Vec<Node<'t>> = descendants(body)
        .into_iter()
        .filter(|n| n.kind() == "call_expression")
        .filter(|n| {
            let callee = n
                .child_by_field_name("function")
                .filter(|f| f.kind() == "member_expression");
            let part = |field: &str| {
                callee
                    .and_then(|f| f.child_by_field_name(field))
                    .map(|x| src.text_of(x))
            };
            part("object") == Some(context) && part("property") == Some("test")
        })
        .collect();
    calls
        .iter()
        .filter(|c| {
            !calls.iter().any(|o| {
                o != *c && o.start_byte() <= c.start_byte() && c.end_byte() <= o.end_byte()
            })
        })
        .copied()
        .collect()
}

fn collect_suite<'t>(
    src: &Source<'_>,
    call: Node<'t>,
    modifier: Option<&str>,
    ctx: &Context,
    out: &mut Collected<'t>,
) {
    let Some(parts) = parts(call) else { return };
    // A suite without a literal title names its tests unknowably: they are not collected here.
    let Some(title) = literal_string(src, parts.title) else {
        return;
    };
    let Some(body) = parts.callback.and_then(|f| f.child_by_field_name("body")) else {
        return;
    };
    let (skip, todo) = own_marks(src, call, modifier, &parts);
    let mut inner = Context {
        titles: ctx.titles.clone(),
        skip: ctx.skip.clone().or(skip),
        todo: ctx.todo.clone().or(todo),
    };
    inner.titles.push(title);
    visit(src, body, &inner, out);
}

/// Whether `src` imports `node:test` (`import .. from 'node:test'`, `require('node:test')`).
pub(super) fn imports_node_test(src: &Source<'_>) -> bool {
    src.nodes().into_iter().any(|n| {
        let source = match n.kind() {
            "import_statement" => n.child_by_field_name("source"),
            "call_expression"
                if n.child_by_field_name("function")
                    .is_some_and(|f| src.text_of(f) == "require") =>
            {
                arguments(n).first().copied()
            }
            _ => None,
        };
        source.and_then(|s| literal_string(src, s)).as_deref() == Some("node:test")
    })
}
