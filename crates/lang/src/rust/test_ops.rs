//! The test operators over libtest tests: DropAssertion, TrivialAssertion, SkipTest,
//! CommentOutTest, DropNegativeAssertions, EmptyTestBody (libtest has no expected-failure mark,
//! so ExpectFailure has no sites).

use tree_sitter::Node;

use super::{delete_range, macro_name, mutation, own_nodes, pick, quote, FnItem};
use crate::edit::Edit;
use crate::operator::{Mutation, Operator};
use crate::syntax::Source;

/// The assertion macros: each statement that invokes one is one assertion.
const ASSERTS: [&str; 8] = [
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "assert_matches",
    "debug_assert_matches",
];

/// The marks SkipTest writes, chosen per site.
const SKIP_FORMS: [&str; 2] = ["#[ignore]", "#[ignore = \"flaky\"]"];

/// The sites of a test operator in one live test named `name`.
pub(crate) fn mutations(
    src: &Source<'_>,
    f: &FnItem<'_>,
    name: &str,
    op: Operator,
) -> Vec<Mutation> {
    let m = |description: String, edits: Vec<Edit>| {
        mutation(src, op, name, format!("`{name}`: {description}"), edits)
    };
    match op {
        Operator::DropAssertion => {
            let mark = f.attr(src, "should_panic").map(|a| {
                let what = format!("the `{}` mark deleted", src.text_of(a));
                m(what, vec![Edit::delete(delete_range(src, a))])
            });
            let asserts = assertions(src, f).into_iter().map(|(stmt, _)| {
                let what = format!("the assertion `{}` deleted", quote(src.text_of(stmt)));
                m(what, vec![Edit::delete(delete_range(src, stmt))])
            });
            mark.into_iter().chain(asserts).collect()
        }
        Operator::TrivialAssertion => assertions(src, f)
            .into_iter()
            .map(|(stmt, _)| {
                let text = if stmt.kind() == "expression_statement" {
                    "assert!(true);"
                } else {
                    "assert!(true)"
                };
                let what = format!("`{}` replaced by `{text}`", quote(src.text_of(stmt)));
                m(what, vec![Edit::new(stmt.byte_range(), text)])
            })
            .collect(),
        Operator::SkipTest => f
            .test_attr(src)
            .map(|attr| {
                let form = SKIP_FORMS[pick(name, SKIP_FORMS.len())];
                let at = attr.start_byte();
                let line_start = src.line_start(at);
                let edit = if src.text[line_start..at].trim().is_empty() {
                    Edit::insert(line_start, format!("{}{form}\n", src.indent_at(at)))
                } else {
                    Edit::insert(at, format!("{form} "))
                };
                m(format!("marked `{form}`"), vec![edit])
            })
            .into_iter()
            .collect(),
        Operator::CommentOutTest => vec![m("commented out".into(), comment_out(src, f))],
        Operator::DropNegativeAssertions => drop_negatives(src, f)
            .map(|(quoted, edits)| m(quoted, edits))
            .into_iter()
            .collect(),
        Operator::EmptyTestBody => {
            if super::statements(f.body).is_empty() {
                return Vec::new();
            }
            vec![m(
                "its body emptied to `{}`".into(),
                vec![Edit::new(f.body.byte_range(), "{}")],
            )]
        }
        _ => Vec::new(),
    }
}

/// `// ` inserted in every non-blank line of the test, attributes and doc comments included, at
/// the test's own indentation (a line indented less: at its indentation).
fn comment_out(src: &Source<'_>, f: &FnItem<'_>) -> Vec<Edit> {
    let mut first = f.attrs.first().copied().unwrap_or(f.node);
    // A doc comment left documenting nothing would not compile: it goes too.
    while let Some(doc) = first.prev_named_sibling().filter(|p| {
        let t = src.text_of(*p);
        super::is_comment(*p) && (t.starts_with("///") || t.starts_with("/**"))
    }) {
        first = doc;
    }
    let base = src.indent_at(first.start_byte());
    let mut edits = Vec::new();
    let mut at = src.line_start(first.start_byte());
    while at < f.node.end_byte() {
        let end = src.line_end(at);
        let line = &src.text[at..end];
        if !line.trim().is_empty() {
            let column = if line.starts_with(base) {
                base.len()
            } else {
                src.indent_at(at).len()
            };
            edits.push(Edit::insert(at + column, "// "));
        }
        if end <= at {
            break;
        }
        at = end;
    }
    edits
}

/// Each assertion statement of a test (the `expression_statement`, or the macro itself when it is
/// the block's tail), with its macro.
fn assertions<'t>(src: &Source<'_>, f: &FnItem<'t>) -> Vec<(Node<'t>, Node<'t>)> {
    own_nodes(f.body)
        .into_iter()
        .filter(|n| macro_name(src, *n).is_some_and(|m| ASSERTS.contains(&m)))
        .filter_map(|mac| {
            let parent = mac.parent()?;
            match parent.kind() {
                "expression_statement" => Some((parent, mac)),
                "block" => Some((mac, mac)),
                _ => None,
            }
        })
        .collect()
}

/// Every negative assertion of a test deleted, when it has one and a positive one too: the
/// description and the edits.
fn drop_negatives(src: &Source<'_>, f: &FnItem<'_>) -> Option<(String, Vec<Edit>)> {
    let all = assertions(src, f);
    let (neg, pos): (Vec<_>, Vec<_>) = all.iter().partition(|(_, mac)| is_negative(src, *mac));
    if neg.is_empty() || pos.is_empty() {
        return None;
    }
    let quoted: Vec<String> = neg
        .iter()
        .map(|(stmt, _)| format!("`{}`", quote(src.text_of(*stmt))))
        .collect();
    let edits = neg
        .iter()
        .map(|(stmt, _)| Edit::delete(delete_range(src, *stmt)))
        .collect();
    let what = format!(
        "{} negative assertion(s) deleted: {}",
        neg.len(),
        quoted.join(", ")
    );
    Some((what, edits))
}

/// Values an `assert_eq!` compares against to say something is absent, empty or zero.
const EMPTY_VALUES: [&str; 11] = [
    "None",
    "false",
    "vec![]",
    "[]",
    "&[]",
    "\"\"",
    "Vec::new()",
    "String::new()",
    "0.0",
    "0.0f32",
    "0.0f64",
];

/// Whether an assertion says something did not happen, is absent, empty or zero.
fn is_negative(src: &Source<'_>, mac: Node<'_>) -> bool {
    let name = macro_name(src, mac).unwrap_or("");
    let args = macro_args(src, mac);
    match name {
        "assert_ne" | "debug_assert_ne" => true,
        "assert" | "debug_assert" => args.first().is_some_and(|a| {
            (a.starts_with('!') && !a.starts_with("!="))
                || a.ends_with(".is_none()")
                || a.ends_with(".is_empty()")
                || a.contains("!=")
        }),
        "assert_eq" | "debug_assert_eq" => args
            .iter()
            .take(2)
            .any(|a| EMPTY_VALUES.contains(&a.as_str()) || is_zero(a)),
        _ => false,
    }
}

/// An integer zero, suffixed or not (`0`, `0u32`, `0_usize`).
fn is_zero(text: &str) -> bool {
    let t: String = text.chars().filter(|c| *c != '_').collect();
    let Some(suffix) = t.strip_prefix('0') else {
        return false;
    };
    suffix.is_empty()
        || [
            "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
        ]
        .contains(&suffix)
}

/// A macro's arguments split at its top-level commas, each trimmed.
fn macro_args(src: &Source<'_>, mac: Node<'_>) -> Vec<String> {
    let Some(tree) = super::named_children_of_kind(mac, "token_tree")
        .into_iter()
        .next()
    else {
        return Vec::new();
    };
    let (open, close) = (tree.start_byte() + 1, tree.end_byte().saturating_sub(1));
    let mut cuts = vec![open];
    let mut cursor = tree.walk();
    for c in tree.children(&mut cursor) {
        if c.kind() == "," {
            cuts.push(c.start_byte());
            cuts.push(c.end_byte());
        }
    }
    cuts.push(close.max(open));
    cuts.chunks(2)
        .map(|w| src.text[w[0]..w[1].max(w[0])].trim().to_string())
        .filter(|a| !a.is_empty())
        .collect()
}
