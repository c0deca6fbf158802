//! The verification loop's configuration, read from the `## Verification` section of the
//! repository's `AGENTS.md` (docs/CONCEPTS.md#loop-configuration: the loop reads its commands and
//! `maxIterations` from there). A repository without that section is judged as before, without the
//! loop. The syntax is in docs/LOOP.md.

use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Duration;

use regex::Regex;

use crate::check::rules::*;
use crate::finding::GateFinding;
use crate::repo::{is_plain_relative, RepoView};

/// The file the loop's configuration lives in, at the repository root.
pub const AGENTS_FILE: &str = "AGENTS.md";

/// The heading (any level, any case) that opens the loop's section of `AGENTS.md`.
pub const SECTION: &str = "verification";

/// The iteration limit when `maxIterations` is not given (docs/CONCEPTS.md#loop-configuration: 3).
pub const DEFAULT_MAX_ITERATIONS: u32 = 3;

/// The per-command time limit when `commandTimeoutSeconds` is not given.
pub const DEFAULT_TIMEOUT_SECONDS: u64 = 300;

/// Every key the section may hold.
pub const KEYS: [&str; 8] = [
    "requirementId",
    "buildCommand",
    "testCommand",
    "perfCommand",
    "lintCommand",
    "maxIterations",
    "commandTimeoutSeconds",
    "prd",
];

/// What the section says about one dimension's command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandSpec {
    /// A command to run: the program and its arguments, as written and as split.
    Run {
        argv: Vec<String>,
        text: String,
        line: u64,
    },
    /// `none`: the project declares it has no such command.
    NotApplicable { line: u64 },
    /// The key is absent: the gate does not guess a command.
    Missing,
}

/// The loop's configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopConfig {
    /// The requirement (SV-ID) the state file and the delivery documents are named after.
    pub requirement_id: String,
    pub build: CommandSpec,
    pub test: CommandSpec,
    pub perf: CommandSpec,
    pub lint: CommandSpec,
    pub max_iterations: u32,
    pub timeout: Duration,
    /// The PRD skein-check reads (repository path and the line of the key), when declared.
    pub prd: Option<(String, u64)>,
    /// The line of the section heading, for findings about keys that are absent.
    pub section_line: u64,
}

/// What `AGENTS.md` says about the loop.
#[derive(Debug, Clone, PartialEq)]
pub enum Loaded {
    /// No `AGENTS.md`, or no `## Verification` section in it: the loop is off.
    Disabled,
    Enabled(Box<LoopConfig>),
    /// The section exists but cannot be used: the findings say why.
    Invalid(Vec<GateFinding>),
}

fn heading() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"^(#{1,6})\s+(.*?)\s*#*\s*$").expect("valid regex"))
}

fn key_line() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"^\s*[-*+]\s+([A-Za-z][A-Za-z0-9]*)\s*:\s*(.*?)\s*$").expect("valid regex")
    })
}

fn requirement_id_pattern() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"^[A-Za-z0-9][A-Za-z0-9._-]*$").expect("valid regex"))
}

/// Reads the loop's configuration from the repository's `AGENTS.md`.
pub fn load(repo: &RepoView) -> Loaded {
    let Some(bytes) = repo.read(AGENTS_FILE) else {
        return Loaded::Disabled;
    };
    let text = String::from_utf8_lossy(&bytes);
    parse(&text)
}

/// Parses the text of an `AGENTS.md`.
pub fn parse(text: &str) -> Loaded {
    let lines: Vec<&str> = text.lines().collect();
    let mut section: Option<(usize, usize)> = None;
    let mut fence = false;
    for (index, line) in lines.iter().enumerate() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        let Some(caps) = heading().captures(line) else {
            continue;
        };
        let level = caps[1].len();
        if section.is_none() && caps[2].trim().eq_ignore_ascii_case(SECTION) {
            section = Some((index, level));
        } else if let Some((start, open_level)) = section {
            if index > start && level <= open_level {
                return parse_section(&lines, start, index);
            }
        }
    }
    match section {
        Some((start, _)) => parse_section(&lines, start, lines.len()),
        None => Loaded::Disabled,
    }
}

fn parse_section(lines: &[&str], start: usize, end: usize) -> Loaded {
    let section_line = start as u64 + 1;
    let mut findings = Vec::new();
    let mut values: BTreeMap<&str, (String, u64)> = BTreeMap::new();
    let mut fence = false;
    for (index, line) in lines.iter().enumerate().take(end).skip(start + 1) {
        if line.trim_start().starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        let Some(caps) = key_line().captures(line) else {
            continue;
        };
        let number = index as u64 + 1;
        let key = caps.get(1).map_or("", |m| m.as_str());
        let raw = caps.get(2).map_or("", |m| m.as_str());
        let Some(known) = KEYS.iter().find(|k| **k == key) else {
            findings.push(
                GateFinding::new(loop_config::INVALID,
                        format!("unknown key `{key}` in the Verification section"),
                        format!(
                            "{AGENTS_FILE} line {number}: `{key}` is not a key of the verification \
                             loop. Known keys: {}. Every `- key: value` line of the section is read \
                             as a key.",
                            KEYS.join(", ")
                        ),
                    )
                    .at(AGENTS_FILE, Some(number)),
            );
            continue;
        };
        if let Some((_, first)) = values.get(known) {
            findings.push(
                GateFinding::new(
                    loop_config::INVALID,
                    format!("`{key}` is given twice"),
                    format!(
                        "{AGENTS_FILE} gives `{key}` on line {first} and again on line {number}; \
                             the gate does not pick one. Keep one."
                    ),
                )
                .at(AGENTS_FILE, Some(number)),
            );
            continue;
        }
        values.insert(known, (unquote(raw).to_owned(), number));
    }
    let requirement_id = match values.get("requirementId") {
        Some((value, _)) if requirement_id_pattern().is_match(value) => value.clone(),
        Some((value, line)) => {
            findings.push(
                GateFinding::new(
                    loop_config::INVALID,
                    format!("requirementId `{value}` cannot name files"),
                    format!(
                        "{AGENTS_FILE} line {line}: the requirement id names the state file and \
                             the delivery documents, so it must be letters, digits, `.`, `_` and \
                             `-` (e.g. SV-10001)."
                    ),
                )
                .at(AGENTS_FILE, Some(*line)),
            );
            String::new()
        }
        None => {
            findings.push(
                GateFinding::new(
                    loop_config::INVALID,
                    "no requirementId in the Verification section",
                    format!(
                        "{AGENTS_FILE} has a Verification section (line {section_line}) but no \
                             `- requirementId: SV-xxxxx`: the loop cannot name its state file or \
                             the delivery documents (the verification loop reads the SV-ID first)."
                    ),
                )
                .at(AGENTS_FILE, Some(section_line)),
            );
            String::new()
        }
    };
    let number =
        |key: &str, min: u64, max: u64, default: u64, findings: &mut Vec<GateFinding>| -> u64 {
            match values.get(key) {
                None => default,
                Some((value, line)) => {
                    match value.parse::<u64>() {
                        Ok(n) if (min..=max).contains(&n) => n,
                        _ => {
                            findings.push(
                        GateFinding::new(
                            loop_config::INVALID,
                            format!("`{key}: {value}` is not a whole number from {min} to {max}"),
                            format!(
                                "{AGENTS_FILE} line {line}: `{key}` must be a whole number \
                                     from {min} to {max}."
                            ),
                        )
                        .at(AGENTS_FILE, Some(*line)),
                    );
                            default
                        }
                    }
                }
            }
        };
    let max_iterations = number(
        "maxIterations",
        1,
        100,
        u64::from(DEFAULT_MAX_ITERATIONS),
        &mut findings,
    ) as u32;
    let timeout = number(
        "commandTimeoutSeconds",
        1,
        86_400,
        DEFAULT_TIMEOUT_SECONDS,
        &mut findings,
    );
    let command = |key: &str, findings: &mut Vec<GateFinding>| -> CommandSpec {
        let Some((value, line)) = values.get(key) else {
            return CommandSpec::Missing;
        };
        if value.eq_ignore_ascii_case("none") {
            return CommandSpec::NotApplicable { line: *line };
        }
        match split_command(value) {
            Ok(argv) => CommandSpec::Run {
                argv,
                text: value.clone(),
                line: *line,
            },
            Err(why) => {
                findings.push(
                    GateFinding::new(
                        loop_config::INVALID,
                        format!("`{key}` cannot be run as written"),
                        format!(
                            "{AGENTS_FILE} line {line}: `{value}`: {why}. The gate runs a \
                                 command directly, without a shell; for shell syntax write \
                                 `sh -c '...'` or put it in a script."
                        ),
                    )
                    .at(AGENTS_FILE, Some(*line)),
                );
                CommandSpec::Missing
            }
        }
    };
    let build = command("buildCommand", &mut findings);
    let test = command("testCommand", &mut findings);
    let perf = command("perfCommand", &mut findings);
    let lint = command("lintCommand", &mut findings);
    let prd = match values.get("prd") {
        Some((path, line)) if is_plain_relative(path) => Some((path.clone(), *line)),
        Some((path, line)) => {
            findings.push(
                GateFinding::new(
                    loop_config::INVALID,
                    format!("prd `{path}` is not a repository path"),
                    format!(
                        "{AGENTS_FILE} line {line}: the PRD must be a relative path inside the \
                             repository (no `..`, no leading `/`)."
                    ),
                )
                .at(AGENTS_FILE, Some(*line)),
            );
            None
        }
        None => None,
    };
    if !findings.is_empty() {
        return Loaded::Invalid(findings);
    }
    Loaded::Enabled(Box::new(LoopConfig {
        requirement_id,
        build,
        test,
        perf,
        lint,
        max_iterations,
        timeout: Duration::from_secs(timeout),
        prd,
        section_line,
    }))
}

/// A value written in one pair of backticks loses them.
fn unquote(raw: &str) -> &str {
    raw.strip_prefix('`')
        .and_then(|inner| inner.strip_suffix('`'))
        .filter(|inner| !inner.contains('`'))
        .unwrap_or(raw)
}

/// Splits a command into program and arguments the way a POSIX shell splits words, with `'...'`
/// and `"..."` quoting and backslash escapes; shell operators outside quotes are refused (nothing
/// would run them).
pub fn split_command(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("a `'` is never closed".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c) => word.push(c),
                            None => return Err("a `\"` is never closed".into()),
                        },
                        Some('$') | Some('`') => {
                            return Err("it expands variables or commands inside `\"...\"`".into())
                        }
                        Some(c) => word.push(c),
                        None => return Err("a `\"` is never closed".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err("it ends with a lone `\\`".into()),
                }
            }
            '|' | '&' | ';' | '<' | '>' | '(' | ')' | '$' | '`' | '*' | '?' | '~' => {
                return Err(format!("`{c}` is shell syntax"));
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err("it is empty".into());
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "# Agents\n\nProse.\n\n## Verification\n\n- requirementId: SV-10001\n- buildCommand: `sh scripts/build.sh`\n- testCommand: `sh scripts/test.sh --tap`\n- perfCommand: none\n- maxIterations: 2\n- commandTimeoutSeconds: 30\n- prd: specs/f/prd.md\n\n## Other\n- unknownKey: fine outside the section\n";

    fn enabled(text: &str) -> LoopConfig {
        match parse(text) {
            Loaded::Enabled(config) => *config,
            other => panic!("expected a config, got {other:?}"),
        }
    }

    fn invalid(text: &str) -> Vec<GateFinding> {
        match parse(text) {
            Loaded::Invalid(items) => items,
            other => panic!("expected findings, got {other:?}"),
        }
    }

    #[test]
    fn the_section_gives_every_key_with_its_line() {
        let config = enabled(GOOD);
        assert_eq!(config.requirement_id, "SV-10001");
        assert_eq!(
            config.build,
            CommandSpec::Run {
                argv: vec!["sh".into(), "scripts/build.sh".into()],
                text: "sh scripts/build.sh".into(),
                line: 8
            }
        );
        assert!(matches!(&config.test, CommandSpec::Run { argv, .. } if argv.len() == 3));
        assert_eq!(config.perf, CommandSpec::NotApplicable { line: 10 });
        assert_eq!(config.lint, CommandSpec::Missing);
        assert_eq!(config.max_iterations, 2);
        assert_eq!(config.timeout, Duration::from_secs(30));
        assert_eq!(config.prd, Some(("specs/f/prd.md".into(), 13)));
        assert_eq!(config.section_line, 5);
    }

    #[test]
    fn a_repository_without_the_section_has_no_loop() {
        assert_eq!(
            parse("# Agents\n\n- buildCommand: make\n"),
            Loaded::Disabled
        );
        assert_eq!(
            parse("```\n## Verification\n- requirementId: X\n```\n"),
            Loaded::Disabled
        );
    }

    #[test]
    fn defaults_apply_when_limits_are_not_given() {
        let config = enabled("## Verification\n- requirementId: R-1\n");
        assert_eq!(config.max_iterations, DEFAULT_MAX_ITERATIONS);
        assert_eq!(config.timeout, Duration::from_secs(DEFAULT_TIMEOUT_SECONDS));
        assert_eq!(config.build, CommandSpec::Missing);
    }

    #[test]
    fn unknown_duplicate_and_malformed_keys_are_findings_at_their_line() {
        let items = invalid(
            "## Verification\n- requirementId: R-1\n- buildComand: make\n- maxIterations: zero\n- maxIterations: 2\n- testCommand: `make && make test`\n",
        );
        let lines: Vec<Option<u64>> = items.iter().map(|i| i.line).collect();
        assert_eq!(
            lines,
            vec![Some(3), Some(5), Some(4), Some(6)],
            "{items:#?}"
        );
        assert!(items.iter().all(|i| i.validator == "loop-config"));
    }

    #[test]
    fn a_missing_requirement_id_is_a_finding_at_the_heading() {
        let items = invalid("intro\n\n### verification\n- buildCommand: make\n");
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].line, Some(3));
        assert!(items[0].title.contains("requirementId"));
    }

    #[test]
    fn commands_split_like_a_shell_and_refuse_shell_operators() {
        assert_eq!(
            split_command(r#"sh -c 'a && b' "x y" z\ w"#).unwrap(),
            vec!["sh", "-c", "a && b", "x y", "z w"]
        );
        for bad in [
            "a | b",
            "a > out",
            "echo $HOME",
            "a; b",
            "ls *.py",
            "'open",
            "",
        ] {
            assert!(split_command(bad).is_err(), "{bad}");
        }
    }
}
