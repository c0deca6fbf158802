//! skein-check (docs/CONCEPTS.md#skein-check) over the PRD the loop's configuration names: unchecked
//! `- [ ]` acceptance items, every contract checked and reported one by one, and consistency
//! conflicts (two definitions of one responsibility, a call that does not match the signature it
//! calls, two contracts that contradict each other), each reported with both locations. The PRD
//! format is in docs/LOOP.md.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

use regex::Regex;
use serde::Serialize;

use crate::check::rules::*;
use crate::finding::GateFinding;
use crate::repo::{is_plain_relative, RepoView};
use gatebench_gittree::in_ledger;

/// File extensions skein-check reads as source code when it looks for definitions and calls.
pub const SOURCE_EXTENSIONS: [&str; 11] = [
    "py", "rs", "js", "mjs", "cjs", "ts", "tsx", "go", "rb", "sh", "bash",
];

/// One contract of the PRD and what checking it gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContractResult {
    pub id: String,
    /// The rule as written.
    pub rule: String,
    /// The PRD line it is written on.
    pub line: u64,
    /// `pass` or `fail`.
    pub result: &'static str,
    /// Why, in one sentence.
    pub detail: String,
}

/// What skein-check found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SkeinOutcome {
    pub findings: Vec<GateFinding>,
    /// Every contract, in PRD order.
    pub contracts: Vec<ContractResult>,
    pub checked_items: usize,
    pub unchecked_items: usize,
    pub conflicts: usize,
}

impl SkeinOutcome {
    /// One line for the V4 notes: items, contracts one by one, conflicts.
    pub fn notes(&self) -> String {
        let contracts: Vec<String> = self
            .contracts
            .iter()
            .map(|c| format!("{} {}", c.id, c.result))
            .collect();
        format!(
            "skein-check: acceptance {} checked, {} unchecked; contracts: {}; {} conflict(s)",
            self.checked_items,
            self.unchecked_items,
            if contracts.is_empty() {
                "none listed".to_owned()
            } else {
                contracts.join(", ")
            },
            self.conflicts
        )
    }
}

/// A contract rule the gate can check.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Rule {
    Defines {
        path: String,
        name: String,
        params: Vec<String>,
    },
    Exists {
        path: String,
    },
    Contains {
        path: String,
        text: String,
    },
}

#[derive(Debug, Clone)]
struct Contract {
    id: String,
    text: String,
    line: u64,
    rule: Result<Rule, String>,
}

/// A function definition found in a source file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Definition {
    path: String,
    line: u64,
    params: Vec<Param>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Param {
    name: String,
    optional: bool,
    variadic: bool,
}

impl Definition {
    fn names(&self) -> Vec<String> {
        self.params.iter().map(|p| p.name.clone()).collect()
    }

    fn at(&self) -> String {
        format!("{}:{}", self.path, self.line)
    }

    /// How many arguments a call may pass: (at least, at most; `None` = no upper bound).
    fn arity(&self) -> (usize, Option<usize>) {
        let required = self
            .params
            .iter()
            .filter(|p| !p.optional && !p.variadic)
            .count();
        let max = if self.params.iter().any(|p| p.variadic) {
            None
        } else {
            Some(self.params.len())
        };
        (required, max)
    }

    fn signature(&self, name: &str) -> String {
        format!("{name}({})", self.names().join(", "))
    }
}

fn heading() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"^#{1,6}\s+(.*?)\s*#*\s*$").expect("valid regex"))
}

fn checkbox() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"^\s*[-*+]\s+\[([ xX])\]\s+(.*?)\s*$").expect("valid regex"))
}

fn contract_line() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"^\s*[-*+]\s+([A-Za-z0-9][A-Za-z0-9_.-]*)\s*:\s*(.*?)\s*$")
            .expect("valid regex")
    })
}

fn defines_rule() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"^`([^`]+)`\s+defines\s+`([A-Za-z_][A-Za-z0-9_]*)\(([^`)]*)\)`\.?$")
            .expect("valid regex")
    })
}

fn exists_rule() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"^`([^`]+)`\s+exists\.?$").expect("valid regex"))
}

fn contains_rule() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"^`([^`]+)`\s+contains\s+`([^`]+)`\.?$").expect("valid regex"))
}

fn section_kind(title: &str) -> Option<Section> {
    let title = title.trim().to_lowercase();
    match title.as_str() {
        "验收标准" | "acceptance" | "acceptance criteria" => Some(Section::Acceptance),
        "契约" | "contracts" => Some(Section::Contracts),
        _ => None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Acceptance,
    Contracts,
}

fn parse_rule(text: &str) -> Result<Rule, String> {
    let path_ok = |path: &str| {
        if is_plain_relative(path) {
            Ok(path.to_owned())
        } else {
            Err(format!("`{path}` is not a repository path"))
        }
    };
    if let Some(caps) = defines_rule().captures(text) {
        let params = caps[3]
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect();
        return Ok(Rule::Defines {
            path: path_ok(&caps[1])?,
            name: caps[2].to_owned(),
            params,
        });
    }
    if let Some(caps) = exists_rule().captures(text) {
        return Ok(Rule::Exists {
            path: path_ok(&caps[1])?,
        });
    }
    if let Some(caps) = contains_rule().captures(text) {
        return Ok(Rule::Contains {
            path: path_ok(&caps[1])?,
            text: caps[2].to_owned(),
        });
    }
    Err("it is not a checkable rule (`PATH` defines `NAME(PARAMS)`, `PATH` exists, or `PATH` contains `TEXT`)".into())
}

/// Checks the PRD at `prd_path` (declared on `AGENTS.md` line `declared_at`) against the work
/// tree.
pub fn check(repo: &RepoView, prd_path: &str, declared_at: u64) -> SkeinOutcome {
    let mut outcome = SkeinOutcome::default();
    let Some(bytes) = repo.read(prd_path) else {
        outcome.findings.push(
            GateFinding::new(
                skein_acceptance::NO_PRD,
                format!("the PRD {prd_path} does not exist"),
                format!(
                    "AGENTS.md line {declared_at} names {prd_path} as the task's PRD, but there \
                         is no such file: no acceptance item or contract can be checked."
                ),
            )
            .at(prd_path, None),
        );
        return outcome;
    };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let mut section = None;
    let mut saw_acceptance = false;
    let mut contracts = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let number = index as u64 + 1;
        if let Some(caps) = heading().captures(line) {
            section = section_kind(&caps[1]);
            saw_acceptance |= section == Some(Section::Acceptance);
            continue;
        }
        match section {
            Some(Section::Acceptance) => {
                let Some(caps) = checkbox().captures(line) else {
                    continue;
                };
                if &caps[1] == " " {
                    outcome.unchecked_items += 1;
                    outcome.findings.push(
                        GateFinding::new(
                            skein_acceptance::UNCHECKED,
                            format!("acceptance item not checked: {}", &caps[2]),
                            format!(
                                "{prd_path} line {number}: `- [ ] {}` is still open. \
                                     skein-check verifies only unchecked items and blocks until \
                                     each holds and is checked (`- [x]`).",
                                &caps[2]
                            ),
                        )
                        .at(prd_path, Some(number)),
                    );
                } else {
                    // Checked in an earlier round: skein-check does not verify it again.
                    outcome.checked_items += 1;
                }
            }
            Some(Section::Contracts) => {
                let Some(caps) = contract_line().captures(line) else {
                    continue;
                };
                contracts.push(Contract {
                    id: caps[1].to_owned(),
                    text: caps[2].to_owned(),
                    line: number,
                    rule: parse_rule(&caps[2]),
                });
            }
            None => {}
        }
    }
    if !saw_acceptance {
        outcome.findings.push(
            GateFinding::new(
                skein_acceptance::NO_SECTION,
                format!("the PRD {prd_path} has no acceptance section"),
                format!(
                    "{prd_path} has no `## 验收标准` (or `## Acceptance`) heading: there are no \
                         acceptance items to verify, which is not the same as all of them holding."
                ),
            )
            .at(prd_path, Some(1)),
        );
    }
    let sources = SourceIndex::new(repo);
    for contract in &contracts {
        let (passed, detail) = match &contract.rule {
            Err(why) => (false, why.clone()),
            Ok(rule) => check_rule(repo, rule),
        };
        if !passed {
            outcome.findings.push(
                GateFinding::new(
                    skein_contract::VIOLATED,
                    format!("contract {} fails: {detail}", contract.id),
                    format!(
                        "{prd_path} line {}: contract {} (`{}`) does not hold: {detail}.",
                        contract.line, contract.id, contract.text
                    ),
                )
                .at(prd_path, Some(contract.line)),
            );
        }
        outcome.contracts.push(ContractResult {
            id: contract.id.clone(),
            rule: contract.text.clone(),
            line: contract.line,
            result: if passed { "pass" } else { "fail" },
            detail,
        });
    }
    let conflicts = consistency(prd_path, &contracts, &sources);
    outcome.conflicts = conflicts.len();
    outcome.findings.extend(conflicts);
    outcome
}

fn check_rule(repo: &RepoView, rule: &Rule) -> (bool, String) {
    match rule {
        Rule::Exists { path } => {
            if repo.is_file(path) {
                (true, format!("{path} exists"))
            } else {
                (false, format!("{path} does not exist"))
            }
        }
        Rule::Contains { path, text } => match repo.read(path) {
            None => (false, format!("{path} does not exist")),
            Some(bytes) if String::from_utf8_lossy(&bytes).contains(text.as_str()) => {
                (true, format!("{path} contains `{text}`"))
            }
            Some(_) => (false, format!("{path} does not contain `{text}`")),
        },
        Rule::Defines { path, name, params } => {
            let wanted = format!("{name}({})", params.join(", "));
            let Some(text) = repo.read(path) else {
                return (
                    false,
                    format!("{path} does not exist, so it cannot define {wanted}"),
                );
            };
            let text = String::from_utf8_lossy(&text);
            let found = definitions_in(path, &text, name);
            match found.first() {
                None => (false, format!("{path} defines no {name}")),
                Some(def) if def.names() == *params => {
                    (true, format!("{} defines {wanted}", def.at()))
                }
                Some(def) => (
                    false,
                    format!("{} defines {}, not {wanted}", def.at(), def.signature(name)),
                ),
            }
        }
    }
}

/// The work tree's source files and their text, read once.
struct SourceIndex {
    files: Vec<(String, String)>,
}

impl SourceIndex {
    fn new(repo: &RepoView) -> SourceIndex {
        let files = repo
            .files()
            .filter(|path| !in_ledger(path) && !path.starts_with("docs/"))
            .filter(|path| {
                path.rsplit_once('.')
                    .is_some_and(|(_, ext)| SOURCE_EXTENSIONS.contains(&ext))
            })
            .filter_map(|path| {
                repo.read(path).map(|bytes| {
                    (
                        path.to_owned(),
                        String::from_utf8_lossy(&bytes).into_owned(),
                    )
                })
            })
            .collect();
        SourceIndex { files }
    }

    fn definitions(&self, name: &str) -> Vec<Definition> {
        // One pattern for every file, and only files that name the function searched: the
        // pattern has no literal prefix, so a search reads every byte (a sixth of a loop trial's
        // CPU when it was compiled and run per file).
        let pattern = definition_pattern(name);
        self.files
            .iter()
            .filter(|(_, text)| text.contains(name))
            .flat_map(|(path, text)| definitions_matching(&pattern, path, text))
            .collect()
    }
}

fn line_at(text: &str, offset: usize) -> u64 {
    text[..offset].matches('\n').count() as u64 + 1
}

/// The text between the `(` at `open` and its matching `)`, when it closes.
fn balanced(text: &str, open: usize) -> Option<&str> {
    let mut depth = 0usize;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(&text[open + 1..open + i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// Splits an argument or parameter list at its top-level commas (brackets, braces, parentheses
/// and angle brackets nest; `->` and `=>` are not brackets).
fn split_top(list: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut depth = 0i32;
    let mut previous = ' ';
    let mut quote: Option<char> = None;
    for c in list.chars() {
        if let Some(q) = quote {
            current.push(c);
            if c == q && previous != '\\' {
                quote = None;
            }
            previous = c;
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '<' => depth += 1,
            '>' if previous != '-' && previous != '=' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                previous = c;
                continue;
            }
            _ => {}
        }
        current.push(c);
        previous = c;
    }
    parts.push(current);
    parts
        .into_iter()
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect()
}

fn parse_params(list: &str) -> Vec<Param> {
    let mut params = Vec::new();
    for raw in split_top(list) {
        if raw == "/" || raw == "*" {
            continue;
        }
        let variadic = raw.starts_with('*') || raw.starts_with("...");
        let cleaned = raw
            .trim_start_matches(['*', '&', '.'])
            .trim_start_matches("mut ")
            .trim();
        let name: String = cleaned
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() || name == "self" || name == "cls" {
            continue;
        }
        let optional = raw.contains('=') || raw.contains('?');
        params.push(Param {
            name,
            optional,
            variadic,
        });
    }
    params
}

/// Compiled patterns by function name, kept across checks: the same few names recur in every
/// contract check and in every copy of a repository, and compiling a pattern cost more than
/// matching it (about 5% of a verification-loop trial's samples). The same name always gives the
/// same pattern, so nothing of one repository reaches another's verdict. Emptied when full.
type PatternMemo = OnceLock<Mutex<HashMap<String, Arc<Regex>>>>;

fn memoized(
    memo: &'static PatternMemo,
    name: &str,
    pattern: impl FnOnce() -> String,
) -> Arc<Regex> {
    const MAX_PATTERNS: usize = 4096;
    let memo = memo.get_or_init(Mutex::default);
    if let Some(regex) = memo.lock().unwrap_or_else(|p| p.into_inner()).get(name) {
        return Arc::clone(regex);
    }
    let regex = Arc::new(Regex::new(&pattern()).expect("an escaped name makes a valid regex"));
    let mut patterns = memo.lock().unwrap_or_else(|p| p.into_inner());
    if patterns.len() >= MAX_PATTERNS {
        patterns.clear();
    }
    patterns.insert(name.to_owned(), Arc::clone(&regex));
    regex
}

fn definition_pattern(name: &str) -> Arc<Regex> {
    static MEMO: PatternMemo = OnceLock::new();
    memoized(&MEMO, name, || {
        format!(
            r"(?m)^[ \t]*(?:(?:pub(?:\([^)]*\))?|async|export|static|public|private|protected|unsafe|const|default)\s+)*(?:def|fn|function|func)\s+(?:\([^)]*\)\s*)?{}\s*(?:<(?:[^<>]|<[^<>]*>)*>)?\s*\(",
            regex::escape(name)
        )
    })
}

/// Every definition of `name` in one file's text.
fn definitions_in(path: &str, text: &str, name: &str) -> Vec<Definition> {
    definitions_matching(&definition_pattern(name), path, text)
}

/// Every match of a [`definition_pattern`] in one file's text, as a definition.
fn definitions_matching(pattern: &Regex, path: &str, text: &str) -> Vec<Definition> {
    pattern
        .find_iter(text)
        .filter_map(|m| {
            let open = m.end() - 1;
            let list = balanced(text, open)?;
            Some(Definition {
                path: path.to_owned(),
                line: line_at(
                    text,
                    m.start() + (m.as_str().len() - m.as_str().trim_start().len()),
                ),
                params: parse_params(list),
            })
        })
        .collect()
}

/// A call of a function: where, and how many arguments it passes (`None` when a spread makes the
/// count unknown).
struct Call {
    path: String,
    line: u64,
    args: Option<usize>,
}

fn calls_of(sources: &SourceIndex, name: &str) -> Vec<Call> {
    static MEMO: PatternMemo = OnceLock::new();
    let pattern = memoized(&MEMO, name, || format!(r"\b{}\s*\(", regex::escape(name)));
    static KEYWORD: OnceLock<Regex> = OnceLock::new();
    let keyword = KEYWORD.get_or_init(|| {
        Regex::new(r"(?:def|fn|function|func)\s+(?:\([^)]*\)\s*)?$").expect("valid regex")
    });
    let mut calls = Vec::new();
    for (path, text) in sources.files.iter().filter(|(_, text)| text.contains(name)) {
        for m in pattern.find_iter(text) {
            let line_start = text[..m.start()].rfind('\n').map_or(0, |i| i + 1);
            let before = &text[line_start..m.start()];
            let trimmed = before.trim_start();
            if keyword.is_match(before)
                || trimmed.starts_with('#')
                || trimmed.starts_with("//")
                || before.matches('"').count() % 2 == 1
                || before.matches('\'').count() % 2 == 1
            {
                continue;
            }
            let Some(list) = balanced(text, m.end() - 1) else {
                continue;
            };
            let parts = split_top(list);
            let spread = parts
                .iter()
                .any(|p| p.starts_with('*') || p.starts_with("..."));
            calls.push(Call {
                path: path.clone(),
                line: line_at(text, m.start()),
                args: (!spread).then_some(parts.len()),
            });
        }
    }
    calls
}

/// A `defines` contract: the contract, the path and the parameters it names.
type DefinesContract<'a> = (&'a Contract, &'a str, &'a Vec<String>);

/// The consistency check: contracts that contradict each other, functions a contract names that
/// are defined in two places, and calls whose argument count the definition does not accept.
fn consistency(prd_path: &str, contracts: &[Contract], sources: &SourceIndex) -> Vec<GateFinding> {
    let mut findings = Vec::new();
    let mut by_name: BTreeMap<&str, Vec<DefinesContract<'_>>> = BTreeMap::new();
    for contract in contracts {
        if let Ok(Rule::Defines { path, name, params }) = &contract.rule {
            by_name
                .entry(name.as_str())
                .or_default()
                .push((contract, path.as_str(), params));
        }
    }
    for (name, defined) in &by_name {
        let (first, first_path, first_params) = defined[0];
        for (other, other_path, other_params) in defined.iter().skip(1) {
            if first_path != *other_path || first_params != *other_params {
                findings.push(
                    GateFinding::new(
                        skein_conflict::CONTRADICT,
                        format!(
                            "contracts {} and {} contradict each other on {name}",
                            first.id, other.id
                        ),
                        format!(
                            "{prd_path}:{} says `{}` and {prd_path}:{} says `{}`: one \
                                 responsibility, two contracts that cannot both hold.",
                            first.line, first.text, other.line, other.text
                        ),
                    )
                    .at(prd_path, Some(other.line)),
                );
            }
        }
        let definitions = sources.definitions(name);
        let canonical = definitions
            .iter()
            .find(|d| d.path == first_path)
            .or_else(|| definitions.first());
        let Some(canonical) = canonical else {
            continue;
        };
        for duplicate in definitions.iter().filter(|d| *d != canonical) {
            findings.push(
                GateFinding::new(
                    skein_conflict::DEFINED_TWICE,
                    format!(
                        "{name} is defined twice: {} and {}",
                        canonical.at(),
                        duplicate.at()
                    ),
                    format!(
                        "Contract {} gives {name} to {first_path}, yet {} defines {} and {} \
                             defines {} again: one responsibility, two implementations.",
                        first.id,
                        canonical.at(),
                        canonical.signature(name),
                        duplicate.at(),
                        duplicate.signature(name)
                    ),
                )
                .at(&duplicate.path, Some(duplicate.line)),
            );
        }
        let (least, most) = canonical.arity();
        for call in calls_of(sources, name) {
            let Some(args) = call.args else { continue };
            let fits = args >= least && most.is_none_or(|m| args <= m);
            if fits {
                continue;
            }
            let takes = match most {
                Some(m) if m == least => format!("{m}"),
                Some(m) => format!("{least} to {m}"),
                None => format!("at least {least}"),
            };
            findings.push(
                GateFinding::new(
                    skein_conflict::SIGNATURE,
                    format!(
                        "the call of {name} at {}:{} does not match {} at {}",
                        call.path,
                        call.line,
                        canonical.signature(name),
                        canonical.at()
                    ),
                    format!(
                        "{}:{} calls {name} with {args} argument(s), but {} defines {} \
                             taking {takes}: the signature and its caller disagree.",
                        call.path,
                        call.line,
                        canonical.at(),
                        canonical.signature(name)
                    ),
                )
                .at(&call.path, Some(call.line)),
            );
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse_into_defines_exists_and_contains() {
        assert_eq!(
            parse_rule("`a/b.py` defines `f(x, y)`"),
            Ok(Rule::Defines {
                path: "a/b.py".into(),
                name: "f".into(),
                params: vec!["x".into(), "y".into()]
            })
        );
        assert_eq!(
            parse_rule("`README.md` exists"),
            Ok(Rule::Exists {
                path: "README.md".into()
            })
        );
        assert!(matches!(
            parse_rule("`README.md` contains `--top N`"),
            Ok(Rule::Contains { .. })
        ));
        assert!(parse_rule("the code is nice").is_err());
        assert!(parse_rule("`../x` exists").is_err());
    }

    #[test]
    fn definitions_are_found_in_python_rust_js_and_go_with_their_parameters() {
        let py = "class A:\n    def top(self, n: int, *, key=None) -> List[Tuple[str, int]]:\n        pass\n\nasync def g(a, b=1, *rest):\n    pass\n";
        let defs = definitions_in("a.py", py, "top");
        assert_eq!(defs.len(), 1);
        assert_eq!(defs[0].line, 2);
        assert_eq!(defs[0].names(), vec!["n", "key"]);
        assert_eq!(defs[0].arity(), (1, Some(2)));
        let g = &definitions_in("a.py", py, "g")[0];
        assert_eq!(g.arity(), (1, None));
        let rs = "pub(crate) fn f<T: Into<String>>(a: HashMap<K, V>, mut b: T) -> u8 { 0 }\n";
        assert_eq!(definitions_in("a.rs", rs, "f")[0].names(), vec!["a", "b"]);
        let js = "export function h(x, y = 2) {}\n";
        assert_eq!(definitions_in("a.js", js, "h")[0].arity(), (1, Some(2)));
        let go = "func (s *S) Run(ctx context.Context, n int) error {\n";
        assert_eq!(
            definitions_in("a.go", go, "Run")[0].names(),
            vec!["ctx", "n"]
        );
        assert!(definitions_in("a.py", "x = top(1)\n", "top").is_empty());
    }

    #[test]
    fn arguments_are_counted_at_the_top_level_only() {
        assert_eq!(
            split_top("a, f(b, c), [d, e], 'x,y'"),
            vec!["a", "f(b, c)", "[d, e]", "'x,y'"]
        );
        assert_eq!(split_top("").len(), 0);
        assert_eq!(split_top("x -> y, z").len(), 2);
    }
}
