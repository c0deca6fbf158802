//! The languages, a parsed source, and what the language modules report: functions and tests.

use std::ops::Range;

use tree_sitter::{Node, Parser, Tree};

/// A language gatebench parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum Lang {
    Python,
    JavaScript,
    Rust,
}

impl Lang {
    /// The language of a file, by its extension: `.py`; `.js`, `.mjs`, `.cjs`; `.rs`.
    pub fn of_path(path: &str) -> Option<Lang> {
        let ext = path.rsplit_once('.').map(|(_, e)| e)?;
        match ext {
            "py" => Some(Lang::Python),
            "js" | "mjs" | "cjs" => Some(Lang::JavaScript),
            "rs" => Some(Lang::Rust),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        self.into()
    }

    fn grammar(self) -> tree_sitter::Language {
        match self {
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
        }
    }
}

/// A source the parser could not read at all (it gives up only on a cancelled parse or an
/// unloadable grammar; syntax errors are nodes of the tree, see [`Source::has_error`]).
#[derive(Debug, thiserror::Error)]
#[error("{lang:?} source could not be parsed: {why}")]
pub struct ParseError {
    pub lang: Lang,
    pub why: String,
}

/// A function or method a file defines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// As written (`cancel`, `apply`, `try_take`).
    pub name: String,
    /// With its enclosing classes, modules or impl types, as a test ref or a reader names it:
    /// Python `Store.save`, JavaScript `Store.save` (a method) or `apply`, Rust `Bucket::try_take`
    /// or `tests::refill_is_capped`.
    pub qualified: String,
    /// The whole definition, decorators and attributes included.
    pub lines: [u32; 2],
    /// The bytes of the body's statements (inside the braces for JavaScript and Rust).
    pub body: Range<usize>,
}

/// Whether a collected test runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TestStatus {
    /// Collected and run.
    Live,
    /// Collected and not run; the mark as written (`@pytest.mark.skip`, `test.skip`, `#[ignore]`).
    Skipped(String),
    /// Run, and its failure does not fail the suite (`@pytest.mark.xfail`, `test.todo`).
    ExpectedFailure(String),
}

/// A test the language's framework would collect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Test {
    /// How a test ref names it after `path::`: Python `test_x` or `TestClass::test_x` (pytest's
    /// node id), JavaScript the test's title (nested `describe` titles joined by ` > `), Rust its
    /// module path within the file (`refill_is_capped`, `tests::refill_is_capped`).
    pub name: String,
    pub lines: [u32; 2],
    /// The bytes of the body's statements.
    pub body: Range<usize>,
    pub status: TestStatus,
}

/// A parsed source: its text, language and tree.
pub(crate) struct Source<'a> {
    pub lang: Lang,
    pub text: &'a str,
    pub tree: Tree,
}

impl<'a> Source<'a> {
    pub fn parse(lang: Lang, text: &'a str) -> Result<Source<'a>, ParseError> {
        let mut parser = Parser::new();
        parser
            .set_language(&lang.grammar())
            .map_err(|e| ParseError {
                lang,
                why: e.to_string(),
            })?;
        let tree = parser.parse(text, None).ok_or_else(|| ParseError {
            lang,
            why: "the parser gave no tree".into(),
        })?;
        Ok(Source { lang, text, tree })
    }

    pub fn root(&self) -> Node<'_> {
        self.tree.root_node()
    }

    /// Whether the tree holds a syntax error anywhere.
    pub fn has_error(&self) -> bool {
        self.root().has_error()
    }

    /// The text of a node.
    pub fn text_of(&self, node: Node<'_>) -> &'a str {
        &self.text[node.byte_range()]
    }

    /// The 1-based lines a node spans.
    pub fn lines_of(&self, node: Node<'_>) -> [u32; 2] {
        [
            node.start_position().row as u32 + 1,
            node.end_position().row as u32 + 1,
        ]
    }

    /// The byte at which the line holding `byte` starts.
    pub fn line_start(&self, byte: usize) -> usize {
        self.text[..byte].rfind('\n').map_or(0, |i| i + 1)
    }

    /// The byte just past the end of the line holding `byte` (past its newline, if any).
    pub fn line_end(&self, byte: usize) -> usize {
        self.text[byte..]
            .find('\n')
            .map_or(self.text.len(), |i| byte + i + 1)
    }

    /// The whitespace that starts the line holding `byte`.
    pub fn indent_at(&self, byte: usize) -> &'a str {
        let start = self.line_start(byte);
        let rest = &self.text[start..];
        &rest[..rest.len() - rest.trim_start_matches([' ', '\t']).len()]
    }

    /// Every node of the tree, depth first in source order.
    pub fn nodes(&self) -> Vec<Node<'_>> {
        let mut out = Vec::new();
        let mut cursor = self.root().walk();
        loop {
            out.push(cursor.node());
            if cursor.goto_first_child() {
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return out;
                }
            }
        }
    }
}

/// The named children of a node.
pub(crate) fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_by_extension() {
        assert_eq!(Lang::of_path("src/a.py"), Some(Lang::Python));
        assert_eq!(Lang::of_path("test/a.test.mjs"), Some(Lang::JavaScript));
        assert_eq!(Lang::of_path("src/lib.rs"), Some(Lang::Rust));
        assert_eq!(Lang::of_path("README.md"), None);
        assert_eq!(Lang::of_path("Makefile"), None);
    }

    #[test]
    fn lines_and_indents() {
        let s = Source::parse(Lang::Python, "def f():\n    return 1\n").unwrap();
        assert!(!s.has_error());
        let ret = s.text.find("return").unwrap();
        assert_eq!(s.indent_at(ret), "    ");
        assert_eq!(s.line_start(ret), 9);
        assert_eq!(s.line_end(ret), s.text.len());
        let f = s.root().named_child(0).unwrap();
        assert_eq!(s.lines_of(f), [1, 2]);
    }
}
