//! Convergence computed from the repository instead of read from the convergence report:
//! `obligation-implemented` (an obligation's code ref points at a stub) and
//! `unrequested-public-symbol` (a public symbol added in the change that no obligation asked for).

use std::sync::OnceLock;

use globset::{GlobBuilder, GlobSetBuilder};
use regex::Regex;

use crate::check::rules::*;
use crate::context::live_obligations;
use crate::finding::GateFinding;
use crate::load::FeatureLedger;
use crate::repo::{ChangeStatus, RepoView};
use crate::validators::refs::{parse_reference, Target};
use gatebench_gittree::in_ledger;

/// The languages whose public symbols and stubs the gate recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Python,
    Rust,
    Script,
}

/// The language of a repository path, by extension.
pub fn language_of(path: &str) -> Option<Language> {
    let extension = path.rsplit_once('.')?.1;
    match extension {
        "py" => Some(Language::Python),
        "rs" => Some(Language::Rust),
        "js" | "mjs" | "cjs" | "jsx" | "ts" | "mts" | "cts" | "tsx" => Some(Language::Script),
        _ => None,
    }
}

/// Whether a path is test code (a `tests`/`test`/`__tests__` folder, `test_*.py`, `*_test.*`,
/// `*.test.*`, `*.spec.*`, `conftest.py`): its public functions are tests, not an API.
pub fn is_test_path(path: &str) -> bool {
    let mut parts = path.split('/');
    let name = parts.next_back().unwrap_or(path);
    if path
        .split('/')
        .any(|part| matches!(part, "tests" | "test" | "__tests__"))
    {
        return true;
    }
    let stem = name.split('.').next().unwrap_or(name);
    name == "conftest.py"
        || stem.starts_with("test_")
        || stem.ends_with("_test")
        || name.contains(".test.")
        || name.contains(".spec.")
}

/// A public symbol defined in a file: its name and 1-based definition line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub line: u64,
    /// The last line of its definition (the line before the next top-level item, or the end).
    pub end_line: u64,
}

fn symbol_regex(language: Language) -> &'static Regex {
    static PYTHON: OnceLock<Regex> = OnceLock::new();
    static RUST: OnceLock<Regex> = OnceLock::new();
    static SCRIPT: OnceLock<Regex> = OnceLock::new();
    match language {
        Language::Python => PYTHON.get_or_init(|| {
            Regex::new(r"^(?:async\s+def|def|class)\s+([A-Za-z][A-Za-z0-9_]*)").expect("regex")
        }),
        Language::Rust => RUST.get_or_init(|| {
            Regex::new(
                r"^\s*pub\s+(?:(?:async|const|unsafe|extern)\s+)*(?:fn|struct|enum|trait|type|const|static|mod|union)\s+([A-Za-z_][A-Za-z0-9_]*)",
            )
            .expect("regex")
        }),
        Language::Script => SCRIPT.get_or_init(|| {
            Regex::new(
                // ESM `export function NAME`, and CommonJS `module.exports.NAME =` / `exports.NAME =`.
                r"^(?:export\s+(?:default\s+)?(?:async\s+)?(?:function\*?|const|let|var|class|interface|type|enum)\s+|(?:module\.)?exports\.)([A-Za-z_$][A-Za-z0-9_$]*)",
            )
            .expect("regex")
        }),
    }
}

/// Whether a line starts a new top-level item (it ends the previous symbol's span).
fn starts_item(language: Language, line: &str) -> bool {
    match language {
        Language::Python => line
            .chars()
            .next()
            .is_some_and(|first| first.is_ascii_alphabetic() || first == '@' || first == '_'),
        Language::Rust | Language::Script => symbol_regex(language).is_match(line),
    }
}

/// The public symbols a file defines (Python: module-level `def`/`class` not starting with `_`;
/// Rust: `pub` items; JS/TS: `export`ed functions, constants and classes).
pub fn public_symbols(language: Language, text: &str) -> Vec<Symbol> {
    let lines: Vec<&str> = text.lines().collect();
    let regex = symbol_regex(language);
    let mut symbols: Vec<Symbol> = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if let Some(captures) = regex.captures(line) {
            let name = captures[1].to_owned();
            let mut end = lines.len();
            for (next, later) in lines.iter().enumerate().skip(index + 1) {
                if starts_item(language, later) {
                    end = next;
                    break;
                }
            }
            // Trailing blank lines belong to nobody.
            while end > index + 1 && lines[end - 1].trim().is_empty() {
                end -= 1;
            }
            symbols.push(Symbol {
                name,
                line: index as u64 + 1,
                end_line: end as u64,
            });
        }
    }
    symbols
}

/// Why the lines `start..=end` of a file are a stub, with the line that shows it; `None` when
/// they hold real code. A stub is a TODO or FIXME marker, `raise NotImplementedError`, `todo!()`,
/// `unimplemented!()`, `throw new Error("not implemented")`, a Python body that is only `pass` or
/// `...`, or an empty `{}` body.
pub fn stub_in(language: Language, text: &str, start: u64, end: u64) -> Option<(u64, String)> {
    static MARKER: OnceLock<Regex> = OnceLock::new();
    let marker = MARKER.get_or_init(|| {
        Regex::new(
            r#"(?i)\b(?:TODO|FIXME)\b|raise\s+NotImplementedError|\btodo!\s*\(|\bunimplemented!\s*\(|throw\s+new\s+Error\(\s*["'`]not implemented"#,
        )
        .expect("regex")
    });
    let lines: Vec<&str> = text.lines().collect();
    let first = start.max(1) as usize;
    let last = (end as usize).min(lines.len());
    for number in first..=last {
        if let Some(found) = marker.find(lines[number - 1]) {
            return Some((number as u64, format!("`{}`", found.as_str())));
        }
    }
    for number in first..=last {
        if let Some(why) = empty_body(language, &lines, number - 1) {
            return Some((number as u64, why));
        }
    }
    None
}

/// Whether the definition starting at `index` has an empty body.
fn empty_body(language: Language, lines: &[&str], index: usize) -> Option<String> {
    let line = lines[index];
    match language {
        Language::Python => {
            let trimmed = line.trim_start();
            if !(trimmed.starts_with("def ") || trimmed.starts_with("async def ")) {
                return None;
            }
            let indent = line.len() - trimmed.len();
            // Skip a multi-line signature: the body starts after the line ending in `:`.
            let mut cursor = index;
            while cursor < lines.len() && !lines[cursor].trim_end().ends_with(':') {
                cursor += 1;
            }
            let mut body = Vec::new();
            let mut in_docstring = false;
            for later in lines.iter().skip(cursor + 1) {
                let trimmed = later.trim();
                if trimmed.is_empty() {
                    continue;
                }
                let later_indent = later.len() - later.trim_start().len();
                if later_indent <= indent {
                    break;
                }
                let quotes = trimmed.matches("\"\"\"").count() + trimmed.matches("'''").count();
                if in_docstring {
                    if quotes % 2 == 1 {
                        in_docstring = false;
                    }
                    continue;
                }
                if trimmed.starts_with("\"\"\"") || trimmed.starts_with("'''") {
                    in_docstring = quotes % 2 == 1;
                    continue;
                }
                if trimmed.starts_with('#') {
                    continue;
                }
                body.push(trimmed);
            }
            if !body.is_empty() && body.iter().all(|line| *line == "pass" || *line == "...") {
                Some(format!("a body that is only `{}`", body[0]))
            } else {
                None
            }
        }
        Language::Rust | Language::Script => {
            let trimmed = line.trim();
            let is_function = trimmed.contains("fn ") || trimmed.contains("function");
            if !is_function {
                return None;
            }
            let compact: String = trimmed.chars().filter(|c| !c.is_whitespace()).collect();
            if compact.ends_with("{}") {
                return Some("an empty body `{}`".to_owned());
            }
            if compact.ends_with('{') {
                for later in lines.iter().skip(index + 1) {
                    let later = later.trim();
                    if later.is_empty() || later.starts_with("//") {
                        continue;
                    }
                    return (later == "}").then(|| "an empty body `{}`".to_owned());
                }
            }
            None
        }
    }
}

/// `obligation-implemented`: no live obligation's code ref points at a stub, whatever the
/// convergence report classifies it as.
pub fn obligation_implemented(repo: &RepoView, feature: &FeatureLedger) -> Vec<GateFinding> {
    let Some(requirements) = &feature.requirements else {
        return Vec::new();
    };
    let mut findings = Vec::new();
    for (requirement, obligation) in live_obligations(&requirements.value) {
        for code_ref in &obligation.code_refs {
            let reference = parse_reference(code_ref);
            let path = reference.repo_path().to_owned();
            let Some(language) = language_of(&path) else {
                continue;
            };
            let Some(bytes) = repo.read(&path) else {
                continue;
            };
            let Ok(text) = std::str::from_utf8(&bytes) else {
                continue;
            };
            let (start, end) = match &reference.target {
                Target::Lines(start, end) => (*start, *end),
                Target::Symbol(name) => {
                    let last = name.rsplit("::").next().unwrap_or(name);
                    match public_symbols(language, text)
                        .into_iter()
                        .find(|symbol| symbol.name == last)
                    {
                        Some(symbol) => (symbol.line, symbol.end_line),
                        None => continue,
                    }
                }
                Target::File => continue,
            };
            if let Some((line, why)) = stub_in(language, text, start, end) {
                let mut finding = GateFinding::new(
                    obligation_implemented::STUB,
                    format!("{} points at a stub ({why})", obligation.id),
                    format!(
                        "{} of {} cites {code_ref}, and line {line} of {path} is a stub ({why}): \
                         the obligation is not implemented, whatever the convergence report \
                         says. Implement it and converge again.",
                        obligation.id, requirement.id
                    ),
                )
                .at(&path, Some(line))
                .requirement(&requirement.id)
                .obligation(&obligation.id);
                finding.end_line = Some(end.max(line));
                findings.push(finding);
            }
        }
    }
    findings
}

/// A code range an obligation cites, with the text it covers.
struct Covered {
    path: String,
    target: Target,
}

/// `unrequested-public-symbol`: every public symbol added against the merge base (outside the
/// ledger and test code) is covered by a live obligation's code ref (its definition overlaps a
/// cited range, the ref names it, or a cited range uses it), or lies in a path an approval's
/// `scope_changes` lists.
pub fn unrequested_public_symbols(repo: &RepoView, features: &[FeatureLedger]) -> Vec<GateFinding> {
    let mut covered = Vec::new();
    let mut scope = GlobSetBuilder::new();
    let mut scope_words: Vec<String> = Vec::new();
    for feature in features {
        if let Some(requirements) = &feature.requirements {
            for (_, obligation) in live_obligations(&requirements.value) {
                for code_ref in &obligation.code_refs {
                    let reference = parse_reference(code_ref);
                    covered.push(Covered {
                        path: reference
                            .path
                            .strip_prefix("./")
                            .unwrap_or(&reference.path)
                            .to_owned(),
                        target: reference.target,
                    });
                }
            }
        }
        for approval in feature.approvals.values().flatten() {
            for pattern in &approval.value.scope_changes {
                let glob = pattern
                    .strip_suffix('/')
                    .map_or_else(|| pattern.clone(), |folder| format!("{folder}/**"));
                if let Ok(glob) = GlobBuilder::new(&glob).literal_separator(true).build() {
                    scope.add(glob);
                }
                scope_words.push(pattern.clone());
            }
        }
    }
    let scope = scope.build().unwrap_or_else(|_| globset::GlobSet::empty());
    let cited_text = cited_text(repo, &covered);
    let sources = changed_sources(repo);
    let mut findings = Vec::new();
    for (path, language, text) in &sources {
        if scope.is_match(path) {
            continue;
        }
        let (path, language) = (*path, *language);
        let before: Vec<String> = repo
            .base_contents
            .get(path)
            .map(|bytes| {
                public_symbols(language, &String::from_utf8_lossy(bytes))
                    .into_iter()
                    .map(|symbol| symbol.name)
                    .collect()
            })
            .unwrap_or_default();
        for symbol in public_symbols(language, text) {
            if before.contains(&symbol.name) {
                continue;
            }
            let cited = is_cited(&covered, path, &symbol);
            // Used by cited code, or by other changed source code (outside its own definition):
            // a helper of requested code, not an API of its own.
            let used = contains_word(&cited_text, &symbol.name)
                || sources.iter().any(|(other, _, other_text)| {
                    let own = *other == path;
                    other_text.lines().enumerate().any(|(index, line)| {
                        let number = index as u64 + 1;
                        !(own && (symbol.line..=symbol.end_line).contains(&number))
                            && contains_word(line, &symbol.name)
                    })
                });
            let approved = scope_words
                .iter()
                .any(|entry| contains_word(entry, &symbol.name));
            if cited || used || approved {
                continue;
            }
            let mut finding = GateFinding::new(
                unrequested_public_symbol::SYMBOL,
                format!("unrequested public symbol {} in {}", symbol.name, path),
                format!(
                    "{} adds the public symbol `{}` (line {}), but no obligation's code ref covers \
                     or uses it and no approval lists it in `scope_changes`: code that no \
                     requirement asked for, whatever the convergence report says. Remove it, or \
                     approve it as a scope change.",
                    path, symbol.name, symbol.line
                ),
            )
            .at(path, Some(symbol.line));
            finding.end_line = Some(symbol.end_line);
            findings.push(finding);
        }
    }
    findings
}

/// The text of every cited line range, to find symbols the requested code uses.
fn cited_text(repo: &RepoView, covered: &[Covered]) -> String {
    let mut cited_text = String::new();
    for entry in covered {
        let Some(bytes) = repo.read(&entry.path) else {
            continue;
        };
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        if let Target::Lines(start, end) = entry.target {
            for line in text
                .lines()
                .skip(start.saturating_sub(1) as usize)
                .take((end + 1).saturating_sub(start) as usize)
            {
                cited_text.push_str(line);
                cited_text.push('\n');
            }
        }
    }
    cited_text
}

/// The changed source files (outside the ledger and test code) with their text.
fn changed_sources(repo: &RepoView) -> Vec<(&str, Language, String)> {
    repo.changes
        .iter()
        .filter(|change| {
            change.status != ChangeStatus::Deleted
                && !in_ledger(&change.path)
                && !is_test_path(&change.path)
        })
        .filter_map(|change| {
            let language = language_of(&change.path)?;
            let text = String::from_utf8(repo.read(&change.path)?.into_owned()).ok()?;
            Some((change.path.as_str(), language, text))
        })
        .collect()
}

/// Whether an obligation's code ref covers `symbol` of `path`.
fn is_cited(covered: &[Covered], path: &str, symbol: &Symbol) -> bool {
    covered.iter().any(|entry| {
        entry.path == path
            && match &entry.target {
                Target::File => true,
                Target::Lines(start, end) => *start <= symbol.end_line && symbol.line <= *end,
                Target::Symbol(name) => name.rsplit("::").next().unwrap_or(name) == symbol.name,
            }
    })
}

/// Whether `word` occurs in `text` as a whole identifier.
fn contains_word(text: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    text.match_indices(word).any(|(offset, _)| {
        let before = text[..offset].chars().next_back();
        let after = text[offset + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_public_symbols_skip_private_and_nested_definitions() {
        let text = "def a():\n    def inner():\n        pass\n    return 1\n\n\ndef _hidden():\n    pass\nclass B:\n    def method(self):\n        pass\n";
        let symbols = public_symbols(Language::Python, text);
        let names: Vec<&str> = symbols.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a", "B"]);
        assert_eq!((symbols[0].line, symbols[0].end_line), (1, 4));
        assert_eq!((symbols[1].line, symbols[1].end_line), (9, 11));
    }

    #[test]
    fn rust_and_script_public_symbols() {
        let rust = "pub fn a() {}\nfn b() {}\npub(crate) fn c() {}\npub struct D;\n";
        let names: Vec<String> = public_symbols(Language::Rust, rust)
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(names, ["a", "D"]);
        let script = "export function a() {}\nfunction b() {}\nexport const C = 1;\nexport class E {}\nmodule.exports.f = f;\nexports.g = g;\n";
        let names: Vec<String> = public_symbols(Language::Script, script)
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(names, ["a", "C", "E", "f", "g"]);
    }

    #[test]
    fn stubs_are_recognised_in_each_language() {
        let todo = "def f():\n    # TODO(T1): restore\n    return 1\n";
        assert_eq!(stub_in(Language::Python, todo, 1, 3).unwrap().0, 2);
        let pass = "def f(x):\n    \"\"\"Docs.\"\"\"\n    pass\n";
        assert!(stub_in(Language::Python, pass, 1, 3).is_some());
        let raise = "def f(x):\n    raise NotImplementedError\n";
        assert!(stub_in(Language::Python, raise, 1, 2).is_some());
        assert!(stub_in(Language::Rust, "fn f() {\n    todo!()\n}\n", 1, 3).is_some());
        assert!(stub_in(Language::Rust, "fn f() {\n    unimplemented!()\n}\n", 1, 3).is_some());
        assert!(stub_in(Language::Rust, "pub fn f() {\n}\n", 1, 2).is_some());
        let js = "export function f() {\n  throw new Error(\"not implemented\");\n}\n";
        assert!(stub_in(Language::Script, js, 1, 3).is_some());
        let real = "def f(x):\n    if x:\n        pass\n    return x\n";
        assert_eq!(stub_in(Language::Python, real, 1, 4), None);
        // Outside the cited lines a marker does not count.
        assert_eq!(stub_in(Language::Python, todo, 3, 3), None);
    }

    #[test]
    fn test_paths_are_not_api() {
        assert!(is_test_path("tests/test_cancel.py"));
        assert!(is_test_path("src/app.test.ts"));
        assert!(is_test_path("pkg/thing_test.py"));
        assert!(!is_test_path("src/subscription/cancel.py"));
    }
}
