//! Source files as a parser sees them. One tree-sitter grammar per language (`python.rs`,
//! `javascript.rs`, `rust.rs`) answers three questions the same way for the mutation engine and the
//! reference gate's deep mode:
//! - which functions a file defines, and which tests its framework would collect and run
//!   ([`functions`], [`tests`]): a test in a comment or a string is not one;
//! - where each mutation operator applies, and the edit it makes ([`mutations`]);
//! - what an obligation's cited lines look like with their behaviour removed ([`neutralize`]).
//!
//! Everything here is pure: text in, text and positions out. Lines are 1-based and inclusive.

mod edit;
mod javascript;
mod operator;
mod python;
mod rust;
mod syntax;

pub use edit::{apply, Edit};
pub use operator::{Mutation, Operator, OperatorFamily};
pub use syntax::{Function, Lang, ParseError, Test, TestStatus};

use syntax::Source;

/// Every function (and method) `source` defines, in source order.
pub fn functions(lang: Lang, source: &str) -> Result<Vec<Function>, ParseError> {
    let src = Source::parse(lang, source)?;
    Ok(match lang {
        Lang::Python => python::functions(&src),
        Lang::JavaScript => javascript::functions(&src),
        Lang::Rust => rust::functions(&src),
    })
}

/// Every test the language's framework would collect from `source` (pytest, `node:test`, libtest),
/// in source order, with whether it would run, be skipped, or be expected to fail.
pub fn tests(lang: Lang, source: &str) -> Result<Vec<Test>, ParseError> {
    let src = Source::parse(lang, source)?;
    Ok(match lang {
        Lang::Python => python::tests(&src),
        Lang::JavaScript => javascript::tests(&src),
        Lang::Rust => rust::tests(&src),
    })
}

/// Every site of `op` in `source`, each with the edit it makes. Sites are in source order and
/// their ids are unique within (source, operator). An operator that does not apply to the language
/// has no sites.
pub fn mutations(lang: Lang, source: &str, op: Operator) -> Result<Vec<Mutation>, ParseError> {
    let src = Source::parse(lang, source)?;
    let mut out = match lang {
        Lang::Python => python::mutations(&src, op),
        Lang::JavaScript => javascript::mutations(&src, op),
        Lang::Rust => rust::mutations(&src, op),
    };
    operator::unique_sites(&mut out);
    // A mutant that does not parse would be a syntax error, not an omission.
    out.retain(|m| Source::parse(lang, &apply(source, &m.edits)).is_ok_and(|s| !s.has_error()));
    Ok(out)
}

/// The code of `lines` with its behaviour removed, in the language's idiom: when the lines cover a
/// whole function (or its whole body), its body becomes the language's not-implemented stub;
/// otherwise every statement that lies wholly inside the lines is deleted (a block left empty gets
/// the language's empty statement). `None` when no whole statement lies inside the lines.
pub fn neutralize(
    lang: Lang,
    source: &str,
    lines: [u32; 2],
) -> Result<Option<Mutation>, ParseError> {
    let src = Source::parse(lang, source)?;
    let m = match lang {
        Lang::Python => python::neutralize(&src, lines),
        Lang::JavaScript => javascript::neutralize(&src, lines),
        Lang::Rust => rust::neutralize(&src, lines),
    };
    Ok(m.filter(|m| Source::parse(lang, &apply(source, &m.edits)).is_ok_and(|s| !s.has_error())))
}

/// The function `qualified` of `source` with a body that does nothing and raises nothing, in the
/// language's idiom, and keeps its kind: the quiet default of the `stub-default` operator (`pass`,
/// `return None`, `return;`, `Default::default()`), except that a Python generator stays one (it
/// yields nothing) and a `@contextmanager` yields once. A raise would fail even a test that
/// asserts nothing, and a generator turned into a plain function fails every caller. `None` when
/// the function is not defined, is a stub already, or its type has no quiet value.
pub fn quiet(lang: Lang, source: &str, qualified: &str) -> Result<Option<Mutation>, ParseError> {
    let src = Source::parse(lang, source)?;
    let m = match lang {
        Lang::Python => python::quiet(&src, qualified),
        Lang::JavaScript | Lang::Rust => mutations(lang, source, Operator::StubDefault)?
            .into_iter()
            .find(|m| m.function == qualified),
    };
    Ok(m.filter(|m| Source::parse(lang, &apply(source, &m.edits)).is_ok_and(|s| !s.has_error())))
}
