//! The test operators, over the collected tests that run: assertions dropped or made trivial,
//! tests skipped, marked to-do, commented out or emptied, negative assertions dropped.

use super::asserts::{is_negative, Assertion, Library};
use super::collect::{Collected, TestSite};
use super::nodes::{alone_on_lines, descendants, edits_lines, kids, name_hash, quote, removal};
use crate::edit::Edit;
use crate::operator::{Mutation, Operator};
use crate::syntax::{Source, TestStatus};

/// Every site of test operator `op` in the tests of `collected` that run (a skipped or to-do
/// test's mutant would change nothing a run shows).
pub(super) fn mutations(
    src: &Source<'_>,
    op: Operator,
    collected: &Collected<'_>,
) -> Vec<Mutation> {
    let lib = Library::of(src);
    let mut out = Vec::new();
    for site in collected
        .tests
        .iter()
        .filter(|t| t.test.status == TestStatus::Live)
    {
        for (description, edits) in per_test(src, op, &lib, site) {
            out.push(Mutation {
                operator: op,
                site: site.test.name.clone(),
                description: format!("`{}`: {description}", site.test.name),
                function: site.test.name.clone(),
                lines: edits_lines(src, &edits),
                edits,
            });
        }
    }
    out
}

fn per_test(
    src: &Source<'_>,
    op: Operator,
    lib: &Library,
    site: &TestSite<'_>,
) -> Vec<(String, Vec<Edit>)> {
    let asserts = assertions(src, lib, site);
    match op {
        Operator::DropAssertion => asserts
            .iter()
            .map(|a| {
                let what = format!("the assertion `{}` deleted", quote(src.text_of(a.stmt)));
                (what, vec![removal(src, a.stmt)])
            })
            .collect(),
        Operator::TrivialAssertion => asserts
            .iter()
            .filter_map(|a| trivial(src, lib, a))
            .collect(),
        Operator::SkipTest => vec![skip(src, site)],
        Operator::ExpectFailure => vec![todo(src, site)],
        Operator::CommentOutTest => comment_out(src, site).into_iter().collect(),
        Operator::DropNegativeAssertions => drop_negatives(src, &asserts).into_iter().collect(),
        Operator::EmptyTestBody => empty_body(site).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// Every assertion statement in a test's body, nested ones (in a loop, in a callback) included.
fn assertions<'t>(src: &Source<'_>, lib: &Library, site: &TestSite<'t>) -> Vec<Assertion<'t>> {
    let Some(body) = site.body else {
        return Vec::new();
    };
    descendants(body)
        .into_iter()
        .filter_map(|stmt| lib.assertion(src, stmt))
        .collect()
}

/// An assertion replaced by one that always holds, in the same assertion library.
fn trivial(src: &Source<'_>, lib: &Library, a: &Assertion<'_>) -> Option<(String, Vec<Edit>)> {
    let form = lib.trivial(a)?;
    let written: String = src.text_of(a.stmt).split_whitespace().collect();
    let plain: String = form.split_whitespace().collect();
    if written.trim_end_matches(';') == plain.trim_end_matches(';') || written == "assert(true);" {
        return None;
    }
    let description = format!(
        "the assertion `{}` replaced by `{form}`",
        quote(src.text_of(a.stmt))
    );
    Some((description, vec![Edit::new(a.stmt.byte_range(), form)]))
}

/// `test(` -> `test.skip(`, or `{ skip: 'flaky' }` options added (by the name's hash; always
/// `.skip` when the test has options already); `test.only(` -> `test.skip(`; a subtest gets the
/// option.
fn skip(src: &Source<'_>, site: &TestSite<'_>) -> (String, Vec<Edit>) {
    let plain = site.callee.kind() == "identifier";
    if site.subtest || (plain && site.options.is_none() && name_hash(&site.test.name) % 2 == 1) {
        return with_option(site, "skip: 'flaky'", "marked skipped");
    }
    mark(src, site, "skip")
}

/// `test(` -> `test.todo(`, `test.only(` -> `test.todo(`; a subtest gets `{ todo: true }`.
fn todo(src: &Source<'_>, site: &TestSite<'_>) -> (String, Vec<Edit>) {
    if site.subtest {
        return with_option(site, "todo: true", TODO);
    }
    mark(src, site, "todo")
}

const TODO: &str = "marked to-do: its failure no longer fails the suite";

/// Option `pair` added: after the options' last member (so that it wins over an earlier one),
/// or in new options after the title.
fn with_option(site: &TestSite<'_>, pair: &str, what: &str) -> (String, Vec<Edit>) {
    let edit = match site.options {
        Some(options) => match kids(options).last() {
            Some(last) => Edit::insert(last.end_byte(), format!(", {pair}")),
            None => Edit::insert(options.start_byte() + 1, format!(" {pair} ")),
        },
        None => Edit::insert(site.title.end_byte(), format!(", {{ {pair} }}")),
    };
    (format!("{what} (`{pair}`)"), vec![edit])
}

/// The test's callee given modifier `modifier` (`skip`, `todo`).
fn mark(src: &Source<'_>, site: &TestSite<'_>, modifier: &str) -> (String, Vec<Edit>) {
    let (base, edit) = match site.callee.kind() {
        "member_expression" => {
            let object = site.callee.child_by_field_name("object");
            let property = site.callee.child_by_field_name("property");
            match (object, property) {
                (Some(o), Some(p)) => (src.text_of(o), Edit::new(p.byte_range(), modifier)),
                _ => (
                    src.text_of(site.callee),
                    Edit::insert(site.callee.end_byte(), format!(".{modifier}")),
                ),
            }
        }
        _ => (
            src.text_of(site.callee),
            Edit::insert(site.callee.end_byte(), format!(".{modifier}")),
        ),
    };
    let what = if modifier == "todo" {
        TODO
    } else {
        "marked skipped"
    };
    (format!("{what} (`{base}.{modifier}`)"), vec![edit])
}

/// `// ` before every line of the test's statement (when it has its lines to itself).
fn comment_out(src: &Source<'_>, site: &TestSite<'_>) -> Option<(String, Vec<Edit>)> {
    if site.stmt.kind() != "expression_statement" || !alone_on_lines(src, site.stmt) {
        return None;
    }
    let indent = src.indent_at(site.stmt.start_byte()).len();
    let mut edits = Vec::new();
    let mut at = src.line_start(site.stmt.start_byte());
    while at < site.stmt.end_byte() {
        let line = &src.text[at..src.line_end(at)];
        let leading = line.len() - line.trim_start_matches([' ', '\t']).len();
        if !line.trim().is_empty() {
            edits.push(Edit::insert(at + leading.min(indent), "// "));
        }
        at = src.line_end(at);
    }
    Some(("the whole test commented out".to_string(), edits))
}

fn drop_negatives(src: &Source<'_>, asserts: &[Assertion<'_>]) -> Option<(String, Vec<Edit>)> {
    let (negatives, others): (Vec<&Assertion<'_>>, Vec<&Assertion<'_>>) =
        asserts.iter().partition(|a| is_negative(src, a));
    if negatives.is_empty() || others.is_empty() {
        return None;
    }
    // A negative assertion inside another one goes with it.
    let outermost: Vec<&Assertion<'_>> = negatives
        .iter()
        .filter(|a| {
            !negatives.iter().any(|b| {
                b.stmt != a.stmt
                    && b.stmt.start_byte() <= a.stmt.start_byte()
                    && a.stmt.end_byte() <= b.stmt.end_byte()
            })
        })
        .copied()
        .collect();
    let quoted: Vec<String> = outermost
        .iter()
        .map(|a| format!("`{}`", quote(src.text_of(a.stmt))))
        .collect();
    let description = format!(
        "its {} negative assertion(s) deleted: {}",
        outermost.len(),
        quoted.join(", ")
    );
    let edits = outermost.iter().map(|a| removal(src, a.stmt)).collect();
    Some((description, edits))
}

fn empty_body(site: &TestSite<'_>) -> Option<(String, Vec<Edit>)> {
    let body = site.body?;
    if body.kind() == "statement_block" && crate::syntax::named_children(body).is_empty() {
        return None;
    }
    Some((
        "the test's body emptied".to_string(),
        vec![Edit::new(body.byte_range(), "{}")],
    ))
}
