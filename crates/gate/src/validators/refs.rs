//! Code and test references (`path`, `path:LINE`, `path:START-END`, `path::SYMBOL`), checked
//! against the work tree rather than trusted as text, and the two validators built on them:
//! `requirement-code-closure` and `obligation-test-closure`.

use crate::check::rules::*;
use crate::context::{live_obligations, Context};
use crate::finding::GateFinding;
use crate::load::FeatureLedger;
use crate::repo::RepoView;

/// What a reference points at inside its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The whole file.
    File,
    /// Lines START..=END (1-based; a single line has START == END).
    Lines(u64, u64),
    /// An identifier that must occur in the file as a whole word (`::`-separated parts each).
    Symbol(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub path: String,
    pub target: Target,
}

impl Reference {
    /// The path as the repository names it (a leading `./` dropped).
    pub fn repo_path(&self) -> &str {
        self.path.strip_prefix("./").unwrap_or(&self.path)
    }
}

/// Parses a reference. `path::ID` splits at the first `::`; `path:N` and `path:A-B` at the last
/// `:` when what follows is a line or a line range; anything else is a whole-file reference.
pub fn parse_reference(text: &str) -> Reference {
    if let Some((path, symbol)) = text.split_once("::") {
        return Reference {
            path: path.to_owned(),
            target: Target::Symbol(symbol.to_owned()),
        };
    }
    if let Some((path, lines)) = text.rsplit_once(':') {
        let parsed = match lines.split_once('-') {
            Some((start, end)) => start.parse::<u64>().ok().zip(end.parse::<u64>().ok()),
            None => lines.parse::<u64>().ok().map(|line| (line, line)),
        };
        if let Some((start, end)) = parsed {
            return Reference {
                path: path.to_owned(),
                target: Target::Lines(start, end),
            };
        }
    }
    Reference {
        path: text.to_owned(),
        target: Target::File,
    }
}

/// Checks a reference against the work tree. `Err` says, in a sentence fragment, why it does not
/// hold. A whole-file reference is accepted only when `allow_whole_file`.
pub fn check_reference(repo: &RepoView, text: &str, allow_whole_file: bool) -> Result<(), String> {
    let mut reference = parse_reference(text);
    if let Some(stripped) = reference.path.strip_prefix("./") {
        reference.path = stripped.to_owned();
    }
    if !crate::repo::is_plain_relative(&reference.path) {
        return Err(format!(
            "`{}` is not a relative path inside the repository",
            reference.path
        ));
    }
    let Some(content) = repo.read(&reference.path) else {
        return Err(format!(
            "{} does not exist in the work tree",
            reference.path
        ));
    };
    match reference.target {
        Target::File if allow_whole_file => Ok(()),
        Target::File => Err(format!(
            "`{text}` names a whole file, not a test (write `path::TEST_ID` or `path:START-END`)"
        )),
        Target::Lines(start, end) => {
            let count = line_count(&content);
            if start == 0 || end < start {
                Err(format!("`{text}` is not a valid line range"))
            } else if end > count {
                Err(format!(
                    "`{text}` points past the end of {} ({count} lines)",
                    reference.path
                ))
            } else {
                Ok(())
            }
        }
        Target::Symbol(symbol) => {
            let text_content = String::from_utf8_lossy(&content);
            let missing: Vec<&str> = symbol
                .split("::")
                .filter(|part| !occurs_as_id(&text_content, part))
                .collect();
            if symbol.is_empty() || !missing.is_empty() {
                Err(format!(
                    "`{symbol}` does not occur as a whole word (a name with spaces: as a whole \
                     string literal) in {}",
                    reference.path
                ))
            } else {
                Ok(())
            }
        }
    }
}

/// The number of lines of a file (a last line without a newline counts).
pub fn line_count(content: &[u8]) -> u64 {
    let newlines = content.iter().filter(|byte| **byte == b'\n').count() as u64;
    match content.last() {
        None => 0,
        Some(b'\n') => newlines,
        Some(_) => newlines + 1,
    }
}

/// Whether the symbol or test id `id` occurs in `text`. An identifier (`test_owner_can_cancel`,
/// `tests`) occurs as a whole word, whatever the language. An id with whitespace can only be a
/// test named by a string (`test('rejects a key without =', ...)` in node:test, Jest or Mocha,
/// `t.Run("...")` in Go), so it must be a whole string literal: a prefix of a longer name does
/// not resolve.
pub fn occurs_as_id(text: &str, id: &str) -> bool {
    if !id.contains(char::is_whitespace) {
        return occurs_as_word(text, id);
    }
    ['\'', '"', '`']
        .iter()
        .any(|quote| text.contains(&format!("{quote}{id}{quote}")))
}

/// Whether `word` occurs in `text` not glued to other identifier characters. A boundary is
/// required only on the ends of `word` that are identifier characters (`test[param]` ends in `]`).
pub fn occurs_as_word(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    // A plain substring search with the boundaries checked around each match: compiling a
    // regex per call was a tenth of a Loom trial's CPU (perf).
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let open_start = !word.starts_with(is_word);
    let open_end = !word.ends_with(is_word);
    let mut from = 0;
    // Every occurrence, overlapping ones included (`a-a` in `xa-a-a`: only the second is whole).
    while let Some(found) = text[from..].find(word) {
        let at = from + found;
        let end = at + word.len();
        if (open_start || !text[..at].chars().next_back().is_some_and(is_word))
            && (open_end || !text[end..].chars().next().is_some_and(is_word))
        {
            return true;
        }
        from = at + text[at..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// `requirement-code-closure`: every live obligation names at least one code ref, and every code
/// ref of every requirement holds in the work tree.
pub fn requirement_code_closure(ctx: &Context, feature: &FeatureLedger) -> Vec<GateFinding> {
    let Some(requirements) = &feature.requirements else {
        return Vec::new();
    };
    let file = &requirements.file;
    let mut findings = Vec::new();
    for requirement in &requirements.value.requirements {
        if !requirement.obligations.iter().any(|o| o.is_live()) {
            findings.push(
                GateFinding::new(
                    requirement_code_closure::NO_OBLIGATION,
                    format!("requirement {} has no code", requirement.id),
                    format!(
                        "{} has no live obligation, so no code ref shows where it is \
                         implemented. Expand it into obligations with code refs in {}.",
                        requirement.id, file.path
                    ),
                )
                .at(&file.path, file.line_of_json(&requirement.id))
                .requirement(&requirement.id),
            );
        }
    }
    for (requirement, obligation) in live_obligations(&requirements.value) {
        if obligation.code_refs.is_empty() {
            findings.push(
                GateFinding::new(
                    requirement_code_closure::NO_CODE_REF,
                    format!("obligation {} has no code ref", obligation.id),
                    format!(
                        "{} of {} names no code in `code_refs`, so nothing shows where the \
                         behaviour is implemented. Add `path:START-END` of the implementing code \
                         in {}.",
                        obligation.id, requirement.id, file.path
                    ),
                )
                .at(&file.path, file.line_of_json(&obligation.id))
                .requirement(&requirement.id)
                .obligation(&obligation.id),
            );
        }
        for code_ref in &obligation.code_refs {
            if let Err(why) = check_reference(ctx.repo, code_ref, true) {
                findings.push(
                    GateFinding::new(
                        requirement_code_closure::BROKEN,
                        format!("code ref {code_ref} of {} does not hold", obligation.id),
                        format!(
                            "{} of {} names code `{code_ref}`, but {why}. Point the ref at the \
                             code that implements the behaviour, or implement it.",
                            obligation.id, requirement.id
                        ),
                    )
                    .at(
                        &file.path,
                        file.line_of_json_after(&obligation.id, code_ref),
                    )
                    .requirement(&requirement.id)
                    .obligation(&obligation.id),
                );
            }
        }
    }
    findings
}

/// Whether a `path::TEST_ID` test ref in a language the gate parses (Python, JavaScript, Rust)
/// names a test its framework collects and runs: read with the language's parser
/// (`gatebench-lang`), so a test commented out or named in a string is no test, and one marked
/// skipped, ignored, expected to fail or to-do is not run. Any other ref holds here (the plain
/// check above speaks for it).
fn check_live_test(repo: &RepoView, test_ref: &str) -> Result<(), (crate::check::Rule, String)> {
    let reference = parse_reference(test_ref);
    let Target::Symbol(name) = &reference.target else {
        return Ok(());
    };
    let path = reference.path.strip_prefix("./").unwrap_or(&reference.path);
    let Some(lang) = gatebench_lang::Lang::of_path(path) else {
        return Ok(());
    };
    let Some(text) = repo
        .read(path)
        .and_then(|b| String::from_utf8(b.into_owned()).ok())
    else {
        return Ok(());
    };
    let Ok(tests) = gatebench_lang::tests(lang, &text) else {
        return Ok(());
    };
    match tests.iter().find(|t| &t.name == name) {
        Some(t) => match &t.status {
            gatebench_lang::TestStatus::Live => Ok(()),
            gatebench_lang::TestStatus::Skipped(mark) => Err((
                obligation_test_closure::NOT_RUN,
                format!("the test is marked `{mark}`: it is collected and never run"),
            )),
            gatebench_lang::TestStatus::ExpectedFailure(mark) => Err((
                obligation_test_closure::NOT_RUN,
                format!("the test is marked `{mark}`: its failure does not fail the suite"),
            )),
        },
        None => Err((
            obligation_test_closure::BROKEN,
            format!(
                "{path} defines no test `{name}` that its framework would collect (read with the \
                 {} parser: a name in a comment or a string, or a function that is not a test, \
                 is not one)",
                lang.as_str()
            ),
        )),
    }
}

/// `obligation-test-closure`: every live obligation names at least one test ref, and every test
/// ref names a test that exists in the work tree and runs.
pub fn obligation_test_closure(ctx: &Context, feature: &FeatureLedger) -> Vec<GateFinding> {
    let Some(requirements) = &feature.requirements else {
        return Vec::new();
    };
    let file = &requirements.file;
    let mut findings = Vec::new();
    for (requirement, obligation) in live_obligations(&requirements.value) {
        if obligation.test_refs.is_empty() {
            findings.push(
                GateFinding::new(
                    obligation_test_closure::NO_TEST_REF,
                    format!("obligation {} has no test ref", obligation.id),
                    format!(
                        "{} of {} names no test in `test_refs`, so no test verifies it. Write the \
                         test and add `path::TEST_ID` in {}.",
                        obligation.id, requirement.id, file.path
                    ),
                )
                .at(&file.path, file.line_of_json(&obligation.id))
                .requirement(&requirement.id)
                .obligation(&obligation.id),
            );
        }
        for test_ref in &obligation.test_refs {
            let held = check_reference(ctx.repo, test_ref, false)
                .map_err(|why| (obligation_test_closure::BROKEN, why))
                .and_then(|()| check_live_test(ctx.repo, test_ref));
            if let Err((rule, why)) = held {
                findings.push(
                    GateFinding::new(
                        rule,
                        format!("test ref {test_ref} of {} does not hold", obligation.id),
                        format!(
                            "{} of {} names test `{test_ref}`, but {why}. Point the ref at the \
                             test that verifies the behaviour, or write that test.",
                            obligation.id, requirement.id
                        ),
                    )
                    .at(
                        &file.path,
                        file.line_of_json_after(&obligation.id, test_ref),
                    )
                    .requirement(&requirement.id)
                    .obligation(&obligation.id),
                );
            }
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_parse_into_path_and_target() {
        assert_eq!(
            parse_reference("src/a.py:12-30"),
            Reference {
                path: "src/a.py".into(),
                target: Target::Lines(12, 30)
            }
        );
        assert_eq!(parse_reference("src/a.py:7").target, Target::Lines(7, 7));
        assert_eq!(
            parse_reference("tests/t.py::test_x").target,
            Target::Symbol("test_x".into())
        );
        assert_eq!(parse_reference("src/a.py").target, Target::File);
        assert_eq!(parse_reference("src/a:b.py").target, Target::File);
    }

    #[test]
    fn a_test_id_must_occur_as_a_whole_word() {
        assert!(occurs_as_word(
            "def test_owner_can_cancel():",
            "test_owner_can_cancel"
        ));
        assert!(!occurs_as_word(
            "def test_owner_can_cancel_twice():",
            "test_owner_can_cancel"
        ));
        assert!(occurs_as_word("case test[a] ok", "test[a]"));
        assert!(!occurs_as_word("anything", ""));
        assert!(
            occurs_as_word("xa-a-a", "a-a"),
            "an overlapping occurrence counts"
        );
        assert!(!occurs_as_word("test_x2 test_xy", "test_x"));
        assert!(occurs_as_word("ü test_x: é", "test_x"));
    }

    #[test]
    fn a_rust_unit_test_in_its_tests_module_resolves_part_by_part() {
        let reference = parse_reference("src/bucket.rs::tests::refill_is_capped_at_capacity");
        assert_eq!(reference.path, "src/bucket.rs");
        let Target::Symbol(id) = reference.target else {
            panic!("expected a symbol target");
        };
        let source =
            "#[cfg(test)]\nmod tests {\n    #[test]\n    fn refill_is_capped_at_capacity() {}\n}\n";
        assert!(id.split("::").all(|part| occurs_as_id(source, part)));
        let renamed = source.replace("refill_is_capped_at_capacity", "refill_is_capped");
        assert!(!id.split("::").all(|part| occurs_as_id(&renamed, part)));
    }

    #[test]
    fn a_string_named_test_must_be_a_whole_string_literal() {
        let source = "test('a failed write rolls back the keys already set', () => {});\n\
                      it(\"keeps keys\", () => {});\ntest(`with ${x} template`, f);\n";
        assert!(occurs_as_id(
            source,
            "a failed write rolls back the keys already set"
        ));
        assert!(occurs_as_id(source, "with ${x} template"));
        // A prefix of a longer name, or a name that only appears inside another string, is not
        // the test.
        assert!(!occurs_as_id(source, "a failed write rolls back"));
        assert!(!occurs_as_id(source, "rolls back the keys already set"));
        assert!(!occurs_as_id(
            "// a failed write rolls back\n",
            "a failed write rolls back"
        ));
        // A single-word id keeps the identifier rule: `keeps` is a word of that test's name.
        assert!(occurs_as_id(source, "keeps"));
        assert!(occurs_as_id("export function apply(text, env) {", "apply"));
    }

    #[test]
    fn line_count_counts_a_last_line_without_newline() {
        assert_eq!(line_count(b""), 0);
        assert_eq!(line_count(b"a\n"), 1);
        assert_eq!(line_count(b"a\nb"), 2);
    }
}
