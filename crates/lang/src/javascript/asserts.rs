//! Assertions: which statements assert (`node:assert` under the names the file imports it by,
//! `expect(..)` chains, `t.assert.*`), which of them are negative, and an assertion that always
//! holds in the same library.

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

use super::nodes::{arguments, callee_chain, kids, literal_string, statement_call};
use crate::syntax::Source;

/// The modules `node:assert` is imported from.
const MODULES: [&str; 4] = [
    "node:assert",
    "assert",
    "node:assert/strict",
    "assert/strict",
];

/// How a file names `node:assert`.
pub(super) struct Library {
    /// Names bound to the module itself (`assert`, always; `import a from 'node:assert'`).
    roots: BTreeSet<String>,
    /// Those of `roots` the file imports (not the `assert` assumed).
    imported_roots: Vec<String>,
    /// Its functions imported by name: local name -> the module's name (`{ equal as eq }`).
    functions: BTreeMap<String, String>,
}

/// An assertion statement's call.
pub(super) struct Assertion<'t> {
    pub stmt: Node<'t>,
    pub call: Node<'t>,
    /// The callee's names, outermost first (`[assert, strict, equal]`, `[expect, not, toBe]`).
    pub chain: Vec<String>,
    /// The assertion as the module names it (`equal`, `notEqual`, `ok`); empty for a call of the
    /// module itself (`assert(x)`).
    pub method: String,
}

impl Library {
    /// How `src` imports `node:assert`.
    pub fn of(src: &Source<'_>) -> Library {
        let mut lib = Library {
            roots: BTreeSet::from(["assert".to_string()]),
            imported_roots: Vec::new(),
            functions: BTreeMap::new(),
        };
        for node in src.nodes() {
            match node.kind() {
                "import_statement" if from_assert(src, node.child_by_field_name("source")) => {
                    lib.add_import(src, node);
                }
                "variable_declarator" if requires_assert(src, node) => {
                    if let Some(name) = node.child_by_field_name("name") {
                        lib.add_binding(src, name);
                    }
                }
                _ => {}
            }
        }
        lib
    }

    fn add_root(&mut self, name: &str) {
        self.roots.insert(name.to_string());
        self.imported_roots.push(name.to_string());
    }

    fn add_function(&mut self, local: &str, original: &str) {
        match original {
            "default" | "strict" => self.add_root(local),
            _ => {
                self.functions
                    .insert(local.to_string(), original.to_string());
            }
        }
    }

    fn add_import(&mut self, src: &Source<'_>, import: Node<'_>) {
        let clauses = kids(import);
        for clause in clauses.iter().filter(|c| c.kind() == "import_clause") {
            for part in kids(*clause) {
                match part.kind() {
                    "identifier" => self.add_root(src.text_of(part)),
                    "namespace_import" => {
                        if let Some(id) = kids(part).first() {
                            self.add_root(src.text_of(*id));
                        }
                    }
                    "named_imports" => {
                        for spec in kids(part) {
                            let Some(name) = spec.child_by_field_name("name") else {
                                continue;
                            };
                            let original = literal_string(src, name)
                                .unwrap_or_else(|| src.text_of(name).to_string());
                            let local = spec
                                .child_by_field_name("alias")
                                .map_or(original.clone(), |a| src.text_of(a).to_string());
                            self.add_function(&local, &original);
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// `const assert = require(..)`, `const { ok, equal: eq } = require(..)`.
    fn add_binding(&mut self, src: &Source<'_>, pattern: Node<'_>) {
        match pattern.kind() {
            "identifier" => self.add_root(src.text_of(pattern)),
            "object_pattern" => {
                for part in kids(pattern) {
                    match part.kind() {
                        "shorthand_property_identifier_pattern" => {
                            let name = src.text_of(part);
                            self.add_function(name, name);
                        }
                        "pair_pattern" => {
                            let key = part.child_by_field_name("key");
                            let value = part.child_by_field_name("value");
                            if let (Some(k), Some(v)) = (key, value) {
                                if v.kind() == "identifier" {
                                    self.add_function(src.text_of(v), src.text_of(k));
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    /// The assertion a statement makes, if it is one (awaited or not).
    pub fn assertion<'t>(&self, src: &Source<'_>, stmt: Node<'t>) -> Option<Assertion<'t>> {
        let call = statement_call(stmt)?;
        let chain = callee_chain(src, call);
        let first = chain.first()?;
        let method = if self.roots.contains(first) || first == "expect" {
            chain.get(1..).and_then(<[String]>::last).cloned()
        } else if chain.len() > 2 && chain[1] == "assert" {
            chain.last().cloned()
        } else if chain.len() == 1 {
            Some(self.functions.get(first)?.clone())
        } else {
            return None;
        };
        Some(Assertion {
            stmt,
            call,
            method: method.unwrap_or_default(),
            chain,
        })
    }

    /// An assertion that always holds, written with the library the assertion `a` uses; `None`
    /// when the file binds no name to write one with.
    pub fn trivial(&self, a: &Assertion<'_>) -> Option<String> {
        let first = a.chain.first()?;
        if first == "expect" {
            return Some("expect(true).toBe(true);".to_string());
        }
        if self.roots.contains(first) || a.chain.len() > 1 {
            let base = &a.chain[..a.chain.len().min(2)];
            let base = if a.chain.get(1).is_some_and(|p| p == "assert") {
                base.join(".")
            } else {
                first.clone()
            };
            return Some(format!("{base}.ok(true);"));
        }
        let named = |wanted: &[&str]| {
            self.functions
                .iter()
                .find(|(_, original)| wanted.contains(&original.as_str()))
                .map(|(local, _)| local.clone())
        };
        if let Some(ok) = named(&["ok"]) {
            return Some(format!("{ok}(true);"));
        }
        if let Some(eq) = named(&["equal", "strictEqual", "deepEqual", "deepStrictEqual"]) {
            return Some(format!("{eq}(true, true);"));
        }
        self.imported_roots
            .first()
            .map(|r| format!("{r}.ok(true);"))
    }
}

fn from_assert(src: &Source<'_>, source: Option<Node<'_>>) -> bool {
    source
        .and_then(|s| literal_string(src, s))
        .is_some_and(|m| MODULES.contains(&m.as_str()))
}

/// `require('node:assert')`, or `require('node:assert').strict`, as a declarator's value.
fn requires_assert(src: &Source<'_>, declarator: Node<'_>) -> bool {
    let mut value = declarator.child_by_field_name("value");
    if let Some(v) = value.filter(|v| v.kind() == "member_expression") {
        value = v.child_by_field_name("object");
    }
    value.is_some_and(|call| {
        call.kind() == "call_expression"
            && call
                .child_by_field_name("function")
                .is_some_and(|f| src.text_of(f) == "require")
            && from_assert(src, arguments(call).first().copied())
    })
}

/// Whether an assertion says that something did not happen, is absent, empty or false.
pub(super) fn is_negative(src: &Source<'_>, a: &Assertion<'_>) -> bool {
    const NEGATIVE_METHODS: [&str; 10] = [
        "notEqual",
        "notStrictEqual",
        "notDeepEqual",
        "notDeepStrictEqual",
        "doesNotThrow",
        "doesNotReject",
        "doesNotMatch",
        "toBeFalsy",
        "toBeNull",
        "toBeUndefined",
    ];
    let method = a.method.as_str();
    let expect_not =
        a.chain.first().is_some_and(|r| r == "expect") && a.chain.iter().any(|p| p == "not");
    if NEGATIVE_METHODS.contains(&method) || expect_not {
        return true;
    }
    let args = arguments(a.call);
    let text = |i: usize| -> String {
        args.get(i)
            .map(|x| src.text_of(*x).split_whitespace().collect())
            .unwrap_or_default()
    };
    let negated = args.first().is_some_and(|x| {
        x.kind() == "unary_expression"
            && x.child_by_field_name("operator")
                .is_some_and(|o| src.text_of(o) == "!")
    });
    match method {
        "" | "ok" => negated,
        "equal" | "strictEqual" => matches!(
            text(1).as_str(),
            "0" | "null" | "undefined" | "false" | "''" | "\"\"" | "``"
        ),
        "deepEqual" | "deepStrictEqual" => matches!(text(1).as_str(), "[]" | "{}"),
        _ => false,
    }
}
