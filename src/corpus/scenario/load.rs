//! A scenario file loaded (`Scenario`): parsed strictly, then what its schema cannot say checked
//! (its name, bars, a matrix's entries, each pipeline's keys for its kind, a command's fields),
//! errors at their line; a matrix split into single-pipeline scenarios.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use globset::Glob;

use crate::corpus::loader::yaml;
use crate::corpus::scenario::{
    CommandLine, CommandSpec, PipelineKind, PipelineSpec, ScenarioFile, Thresholds, MAX_JOBS,
    MAX_RETRIES, MAX_ROUNDS, MAX_SCENARIO_NAME, MAX_TRIALS,
};
use crate::error::{Error, Result};

/// A scenario's `name`: not empty, at most [`MAX_SCENARIO_NAME`] characters, no control
/// characters.
fn check_name(name: &str) -> std::result::Result<(), String> {
    if name.trim().is_empty() {
        return Err("`name` is empty: a scenario needs a name (it is part of every run id)".into());
    }
    let chars = name.chars().count();
    if chars > MAX_SCENARIO_NAME {
        return Err(format!(
            "`name` is {chars} characters; the limit is {MAX_SCENARIO_NAME} (it is part of every run folder's name)"
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(format!(
            "`name` `{}` contains a control character",
            name.escape_debug()
        ));
    }
    Ok(())
}

/// A loaded scenario and where it came from.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub file: PathBuf,
    pub spec: ScenarioFile,
    /// The `pipelines:` entry this scenario was made from ([`Scenario::per_pipeline`]); `None`
    /// for a scenario as loaded.
    pub matrix_entry: Option<String>,
}

impl Scenario {
    pub fn load(path: &Path) -> Result<Scenario> {
        let text = yaml::read_text(path)?;
        Scenario::parse(path, &text)
    }

    /// Parses and checks the text of a scenario file read from `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Scenario> {
        // Parsed generically first (limits, syntax), so that keys under `pipeline`, which serde
        // cannot check with positions through an internally tagged enum, are checked here.
        let generic: yaml_serde::Value = yaml::parse(path, text)?;
        check_pipeline_keys(path, text, &generic)?;
        let spec: ScenarioFile = yaml::parse(path, text)?;
        let at = |key: &str, value: &str, message: String| {
            Error::invalid_at(path, yaml::locate(text, key, value), message)
        };
        check_name(&spec.name).map_err(|message| at("name", &spec.name, message))?;
        if let Some(jobs) = spec.jobs {
            if !(1..=MAX_JOBS).contains(&jobs) {
                return Err(at(
                    "jobs",
                    &jobs.to_string(),
                    format!("`jobs` must be between 1 and {}", MAX_JOBS),
                ));
            }
        }
        for (key, value, max) in [
            ("trials", spec.trials, MAX_TRIALS),
            ("max_rounds", spec.max_rounds, MAX_ROUNDS),
        ] {
            if !(1..=max).contains(&value) {
                return Err(at(
                    key,
                    &value.to_string(),
                    format!("`{key}` must be between 1 and {max}"),
                ));
            }
        }
        if spec.retries > MAX_RETRIES {
            return Err(at(
                "retries",
                &spec.retries.to_string(),
                format!("`retries` must be between 0 and {MAX_RETRIES}"),
            ));
        }
        check_thresholds(&spec.thresholds).map_err(|(key, message)| at(key, key, message))?;
        if let PipelineSpec::Command(command) = &spec.pipeline {
            check_command(command).map_err(|(key, value, message)| at(key, &value, message))?;
        }
        check_matrix(path, text, &generic, &spec)?;
        for glob in spec.fixtures.include.iter().chain(&spec.fixtures.exclude) {
            Glob::new(glob)
                .map_err(|e| at("include", glob, format!("invalid glob `{glob}`: {e}")))?;
        }
        Ok(Scenario {
            file: path.to_path_buf(),
            spec,
            matrix_entry: None,
        })
    }

    /// Whether the scenario is a matrix (`pipelines:`).
    pub fn is_matrix(&self) -> bool {
        !self.spec.pipelines.is_empty()
    }

    /// The single-pipeline scenario of each matrix entry, in order, by name: the entry's pipeline,
    /// its bars (else the scenario's), and the name `<scenario>-<pipeline>`; everything else (the
    /// file, and so every relative path, fixtures, trials, rounds) is the matrix's. A scenario
    /// that is not a matrix gives itself, unnamed.
    pub fn per_pipeline(&self) -> Vec<(Option<String>, Scenario)> {
        if !self.is_matrix() {
            return vec![(None, self.clone())];
        }
        self.spec
            .pipelines
            .iter()
            .map(|entry| {
                let mut spec = self.spec.clone();
                spec.name = format!("{}-{}", self.spec.name, entry.name);
                spec.pipeline = entry.pipeline.clone();
                spec.pipelines = Vec::new();
                if let Some(th) = &entry.thresholds {
                    spec.thresholds = th.clone();
                }
                let scenario = Scenario {
                    file: self.file.clone(),
                    spec,
                    matrix_entry: Some(entry.name.clone()),
                };
                (Some(entry.name.clone()), scenario)
            })
            .collect()
    }

    /// The folder the scenario file is in: relative paths in it are relative to this.
    pub fn dir(&self) -> PathBuf {
        match self.file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// The fixtures folder this scenario names.
    pub fn fixtures_dir(&self) -> PathBuf {
        let base = self.file.parent().unwrap_or(Path::new("."));
        base.join(self.spec.fixtures_dir.as_deref().unwrap_or("../fixtures"))
    }
}

/// The bars a schema cannot range-check: (key, message) of the first out of range.
fn check_thresholds(th: &Thresholds) -> std::result::Result<(), (&str, String)> {
    let optional = [
        ("min_localization", th.min_localization),
        ("min_finding_precision", th.min_finding_precision),
        ("min_requirement_recall", th.min_requirement_recall),
        ("min_obligation_recall", th.min_obligation_recall),
    ];
    for (key, value) in [
        ("max_false_pass_rate", Some(th.max_false_pass_rate)),
        ("min_recall", Some(th.min_recall)),
    ]
    .into_iter()
    .chain(optional)
    .filter_map(|(key, value)| Some((key, value?)))
    {
        if !(0.0..=1.0).contains(&value) {
            return Err((key, format!("`{key}` must be between 0 and 1")));
        }
    }
    for (category, value) in &th.min_category_recall {
        if !(0.0..=1.0).contains(value) {
            return Err((
                category.as_str(),
                format!("`min_category_recall.{category}` must be between 0 and 1"),
            ));
        }
    }
    Ok(())
}

/// A matrix (`pipelines:`): not beside `pipeline:`, not empty, names usable as folder names and
/// unique, each pipeline and its bars checked as a single pipeline's are. Errors point at the
/// entry's line (the n-th `name:` of the list, found in order).
fn check_matrix(
    path: &Path,
    text: &str,
    generic: &yaml_serde::Value,
    spec: &ScenarioFile,
) -> Result<()> {
    let Some(list) = generic.get("pipelines") else {
        return Ok(());
    };
    let top = |key: &str| {
        text.lines().enumerate().find_map(|(i, line)| {
            line.strip_prefix(key)
                .filter(|rest| rest.trim_start().starts_with(':'))
                .map(|_| crate::error::Position {
                    line: i + 1,
                    column: 1,
                })
        })
    };
    if generic.get("pipeline").is_some() {
        return Err(Error::invalid_at(
            path,
            top("pipelines"),
            "`pipeline` and `pipelines` are both given: a scenario runs one pipeline \
             (`pipeline:`) or a matrix of them (`pipelines:`), not both",
        ));
    }
    if list.as_sequence().is_none_or(|l| l.is_empty()) || spec.pipelines.is_empty() {
        return Err(Error::invalid_at(
            path,
            top("pipelines"),
            "`pipelines` lists no pipeline: give at least one `{name, pipeline}` entry",
        ));
    }
    // The n-th `name:` line after `pipelines:` is the n-th entry's (a pipeline spec has no `name`).
    let start = top("pipelines").map_or(0, |p| p.line);
    let name_lines: Vec<crate::error::Position> = text
        .lines()
        .enumerate()
        .skip(start)
        .filter_map(|(i, line)| {
            let trimmed = line.trim_start();
            let entry = trimmed.strip_prefix("- ").unwrap_or(trimmed).trim_start();
            entry
                .strip_prefix("name")
                .filter(|rest| rest.trim_start().starts_with(':'))
                .map(|_| crate::error::Position {
                    line: i + 1,
                    column: line.len() - entry.len() + 1,
                })
        })
        .collect();
    let entry_at = |n: usize| name_lines.get(n).copied().or(top("pipelines"));
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (n, entry) in spec.pipelines.iter().enumerate() {
        let name = entry.name.as_str();
        let invalid = |message: String| Error::invalid_at(path, entry_at(n), message);
        if !crate::ids::is_pipeline_name(name) {
            return Err(invalid(format!(
                "pipeline name `{name}`: use 1 to 64 letters, digits, `.`, `_` or `-`, not \
                 starting with `.` (it names the pipeline's folder)"
            )));
        }
        if let Some(first) = seen.insert(name, n) {
            return Err(invalid(format!(
                "pipeline name `{name}` is given twice (entries {} and {}): each pipeline of a \
                 matrix needs its own name",
                first + 1,
                n + 1
            )));
        }
        if let PipelineSpec::Command(command) = &entry.pipeline {
            check_command(command).map_err(|(key, _, message)| {
                invalid(format!("pipeline `{name}`: `{key}`: {message}"))
            })?;
        }
        if let Some(th) = &entry.thresholds {
            check_thresholds(th)
                .map_err(|(_, message)| invalid(format!("pipeline `{name}`: {message}")))?;
        }
    }
    Ok(())
}

/// Every key under `pipeline` (and under each matrix entry's `pipeline`) must be one its `kind`
/// has: `kind` alone for `builtin` and `legacy`, the fields of [`CommandSpec`] for `command`.
/// Errors point at the key.
fn check_pipeline_keys(path: &Path, text: &str, generic: &yaml_serde::Value) -> Result<()> {
    let mut specs: Vec<&yaml_serde::Value> = generic.get("pipeline").into_iter().collect();
    if let Some(list) = generic.get("pipelines").and_then(|l| l.as_sequence()) {
        specs.extend(list.iter().filter_map(|entry| entry.get("pipeline")));
    }
    for (nth, spec) in specs.into_iter().enumerate() {
        if let Some(pipeline) = spec.as_mapping() {
            check_keys_of(path, text, pipeline, nth)?;
        }
    }
    Ok(())
}

/// [`check_pipeline_keys`] for one mapping, the `nth` `pipeline:` of the file.
fn check_keys_of(
    path: &Path,
    text: &str,
    pipeline: &yaml_serde::Mapping,
    nth: usize,
) -> Result<()> {
    // An unknown kind takes no keys here; parsing names it.
    let name = pipeline
        .get("kind")
        .and_then(|k| k.as_str())
        .unwrap_or(PipelineKind::Builtin.as_str());
    let kind = name.parse::<PipelineKind>().ok();
    let allowed: Vec<String> = match kind {
        Some(PipelineKind::Command) => {
            let schema = schemars::schema_for!(CommandSpec);
            schema
                .get("properties")
                .and_then(|p| p.as_object())
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default()
        }
        Some(PipelineKind::Builtin) => vec!["depth".to_owned()],
        Some(PipelineKind::Legacy) | None => Vec::new(),
    };
    for key in pipeline.keys() {
        let Some(key) = key.as_str() else { continue };
        if key != "kind" && !allowed.iter().any(|a| a == key) {
            let expected = if allowed.is_empty() {
                "it takes only `kind`".to_owned()
            } else {
                format!(
                    "expected `kind`, {}",
                    allowed
                        .iter()
                        .map(|a| format!("`{a}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            return Err(Error::invalid_at(
                path,
                locate_key(text, key, nth),
                format!("unknown key `{key}` under `pipeline` of kind `{name}`: {expected}"),
            ));
        }
    }
    Ok(())
}

/// The position of `key:` at the start of an indented line, after the `nth` `pipeline:` line.
fn locate_key(text: &str, key: &str, nth: usize) -> Option<crate::error::Position> {
    let start = text
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            let t = l.trim_start();
            t.strip_prefix("- ")
                .unwrap_or(t)
                .trim_start()
                .starts_with("pipeline:")
        })
        .nth(nth)
        .map_or(0, |(i, _)| i);
    text.lines().enumerate().skip(start).find_map(|(i, line)| {
        let trimmed = line.trim_start();
        trimmed
            .strip_prefix(key)
            .filter(|rest| rest.trim_start().starts_with(':'))
            .map(|_| crate::error::Position {
                line: i + 1,
                column: line.len() - trimmed.len() + 1,
            })
    })
}

/// What a schema cannot say about a command pipeline: (key, value to locate, message).
fn check_command(c: &CommandSpec) -> std::result::Result<(), (&'static str, String, String)> {
    let mut lines = vec![("command", &c.command, c.timeout_secs)];
    if let Some(f) = &c.fixer {
        lines.push(("fixer", &f.command, f.timeout_secs));
    }
    for (key, line, timeout) in lines {
        let empty = match line {
            CommandLine::Argv(argv) => argv.first().is_none_or(|p| p.is_empty()),
            CommandLine::Shell(s) => s.trim().is_empty(),
        };
        if empty {
            return Err((key, key.into(), format!("`{key}` names no program")));
        }
        if !(timeout.is_finite() && timeout > 0.0) {
            return Err((
                "timeout_secs",
                "timeout_secs".into(),
                "`timeout_secs` must be a number of seconds above 0".into(),
            ));
        }
    }
    for rule in &c.kinds {
        let patterns = [
            &rule.class,
            &rule.validator,
            &rule.rule,
            &rule.title,
            &rule.description,
        ];
        if patterns.iter().all(|p| p.is_none()) {
            return Err((
                "kind",
                rule.kind.as_str().into(),
                format!(
                    "the `kinds` rule for `{}` needs at least one of class, validator, rule, title, description",
                    rule.kind.as_str()
                ),
            ));
        }
        for pattern in patterns.into_iter().flatten() {
            if let Err(e) = regex::Regex::new(pattern) {
                return Err(("kinds", pattern.clone(), format!("invalid pattern: {e}")));
            }
        }
    }
    for name in c.env.keys().chain(&c.env_allowlist) {
        if name.starts_with("GATEBENCH_") {
            return Err((
                "env",
                name.clone(),
                format!("`{name}`: names starting with GATEBENCH_ are set by gatebench"),
            ));
        }
        if name.is_empty() || name.contains('=') || name.contains('\0') {
            return Err((
                "env",
                name.clone(),
                format!("`{name}` is not a variable name"),
            ));
        }
    }
    Ok(())
}
