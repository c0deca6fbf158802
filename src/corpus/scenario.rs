//! Scenario files (`scenarios/*.yaml`): which fixtures, which pipeline, trials, rounds, jobs and
//! thresholds. The serde types here generate `schemas/scenario.schema.json`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::corpus::taxonomy::Kind;
use crate::corpus::yaml;
use crate::corpus::{Corpus, Entry};
use crate::error::{Error, Result};

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// A short name, used in run ids and reports.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The fixtures folder, relative to this file (default `../fixtures`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixtures_dir: Option<String>,
    #[serde(default)]
    pub fixtures: Selection,
    #[serde(default)]
    pub pipeline: PipelineSpec,
    /// Several pipelines run over the same fixtures in one run, side by side (a matrix, instead of
    /// `pipeline`): each is judged by its own `thresholds` (default: the scenario's), and each
    /// pair is compared (README: "Compare verifiers in one run").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pipelines: Vec<NamedPipeline>,
    /// Independent repetitions of every fixture (default 1).
    #[serde(default = "one")]
    pub trials: u32,
    /// The most rounds (verify, fix, re-verify) a trial may take (default 3).
    #[serde(default = "three")]
    pub max_rounds: u32,
    /// Parallel trials; 0 or absent means one per core.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobs: Option<usize>,
    /// The base ref a pipeline compares against (default `main`).
    #[serde(default = "main_ref")]
    pub base_ref: String,
    #[serde(default)]
    pub thresholds: Thresholds,
    /// Generated mutants of the goldens to add to the corpus before selection (docs/MUTATION.md);
    /// select them with `fixtures: {tags: [mutant]}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutants: Option<MutantSelection>,
    /// What a trial whose pipeline changed the repository it verified comes to: `error` (the
    /// default: a verifier must not fix what it judges) or `flag` (its outcome stands, the
    /// change is only reported).
    #[serde(default)]
    pub on_modified: OnModified,
    /// Re-runs of a trial whose outcome was `error` or `timeout` (an infrastructure failure),
    /// up to this many more times (default 0). A verdict is never retried: a false pass stays one.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retries: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// What a pipeline that modified the repository it verified comes to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OnModified {
    #[default]
    Error,
    Flag,
}

/// Which mutants a run generates: of these goldens, by these operators (empty: all).
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MutantSelection {
    #[serde(default)]
    pub goldens: Vec<String>,
    #[serde(default)]
    pub operators: Vec<String>,
}

fn one() -> u32 {
    1
}
fn three() -> u32 {
    3
}
fn main_ref() -> String {
    "main".into()
}

/// Which fixtures run. A fixture runs when its id matches an `include` glob, it has one of `tags`
/// (when given), its category is in `categories` (when given), and no `exclude` glob matches.
/// The golden of every selected omission fixture runs too, as its control.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Selection {
    #[serde(default = "all")]
    pub include: Vec<String>,
    #[serde(default)]
    pub exclude: Vec<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub categories: Vec<String>,
}

fn all() -> Vec<String> {
    vec!["*".into()]
}

impl Default for Selection {
    fn default() -> Self {
        Selection {
            include: all(),
            exclude: Vec::new(),
            tags: Vec::new(),
            categories: Vec::new(),
        }
    }
}

/// The system under test.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
// Loaded once per run and never stored in bulk: the size of the `Command` variant costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum PipelineSpec {
    /// gatebench's reference gate (the embedded default).
    #[default]
    Builtin,
    /// The document-style checker of seed 004 section 2.1 (artifacts exist, PASS text, exit 0,
    /// log hash), for comparison.
    Legacy,
    /// Any external verifier, run as a process per round (README: "External pipelines").
    Command(CommandSpec),
}

impl PipelineSpec {
    pub fn name(&self) -> &'static str {
        match self {
            PipelineSpec::Builtin => "builtin",
            PipelineSpec::Legacy => "legacy",
            PipelineSpec::Command(_) => "command",
        }
    }
}

/// One pipeline of a matrix: a name (its folder under `pipelines/` of the run), the pipeline in
/// the shape `pipeline:` takes, and optionally its own bars.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NamedPipeline {
    /// Letters, digits, `.`, `_` and `-`, not starting with `.`; unique within the scenario.
    pub name: String,
    pub pipeline: PipelineSpec,
    /// This pipeline's bars (default: the scenario's `thresholds`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thresholds: Option<Thresholds>,
}

/// An external verifier: run with the materialized repository as its working directory, it writes
/// a report v1 to `$GATEBENCH_REPORT`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommandSpec {
    /// An argv list (run as is) or a string (run by `sh -c`). An argv element that names an
    /// existing file relative to the scenario's folder is made absolute, and its content is part
    /// of the pipeline's fingerprint.
    pub command: CommandLine,
    /// Seconds before the command's whole process group is killed and the trial is a `timeout`
    /// (default 600).
    #[serde(default = "ten_minutes")]
    pub timeout_secs: f64,
    /// Variables set for the command (names starting with `GATEBENCH_` are reserved).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Variables passed through from gatebench's environment besides `PATH`, `HOME`, `LANG`,
    /// `LC_ALL`, `TZ` and `TMPDIR`. Nothing else is inherited; every inherited value is part of
    /// the pipeline's fingerprint.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env_allowlist: Vec<String>,
    /// A version string of the verifier (a model name, a skill's revision), part of the
    /// fingerprint: change it to invalidate cached results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// More files (relative to the scenario's folder) whose content is part of the fingerprint:
    /// a script's helpers, a skill's prompt.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// Runs between rounds instead of the fixtures' scripted fixes; its changes are committed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixer: Option<FixerSpec>,
    /// The Landlock filesystem sandbox (README, "The sandbox"): on by default; `none` turns it
    /// off, `required` makes a kernel without Landlock an error, a mapping widens it.
    #[serde(default, skip_serializing_if = "SandboxSpec::is_default")]
    pub sandbox: SandboxSpec,
    /// `none`: the command gets an empty network namespace (no network at all). Default `host`.
    #[serde(default, skip_serializing_if = "Network::is_host")]
    pub network: Network,
    /// Pass `GATEBENCH_SCENARIO_DIR` (the scenario's folder) to the command. Off by default: a
    /// command's own files are already given as absolute paths.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub scenario_dir_env: bool,
    /// How the verifier's findings map onto the omission taxonomy (docs/TAXONOMY.md), for the
    /// typing rate: the first rule whose every pattern matches a finding gives its kind.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<KindRule>,
}

/// `sandbox:` of a command pipeline. Serialized as either form, read with a visitor rather than
/// `#[serde(untagged)]`, whose errors do not say what was expected.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum SandboxSpec {
    /// `on` (the default), `none` or `required`.
    Mode(SandboxMode),
    /// The default sandbox widened.
    Paths(SandboxPaths),
}

impl<'de> Deserialize<'de> for SandboxSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = SandboxSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    "`on`, `none`, `required`, or a mapping with `read`, `write`, `required`",
                )
            }
            fn visit_str<E: serde::de::Error>(
                self,
                v: &str,
            ) -> std::result::Result<Self::Value, E> {
                SandboxMode::deserialize(serde::de::value::StrDeserializer::<E>::new(v))
                    .map(SandboxSpec::Mode)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                SandboxPaths::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(SandboxSpec::Paths)
            }
        }
        d.deserialize_any(Visitor)
    }
}

impl Default for SandboxSpec {
    fn default() -> Self {
        SandboxSpec::Mode(SandboxMode::On)
    }
}

impl SandboxSpec {
    fn is_default(&self) -> bool {
        *self == SandboxSpec::default()
    }

    /// `on`, `none` or `required`.
    pub fn mode(&self) -> SandboxMode {
        match self {
            SandboxSpec::Mode(m) => *m,
            SandboxSpec::Paths(p) if p.required => SandboxMode::Required,
            SandboxSpec::Paths(_) => SandboxMode::On,
        }
    }

    /// The extra paths (relative ones to the scenario's folder; `~/` to `HOME`).
    pub fn paths(&self) -> (&[String], &[String]) {
        match self {
            SandboxSpec::Paths(p) => (&p.read, &p.write),
            SandboxSpec::Mode(_) => (&[], &[]),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SandboxMode {
    /// Sandboxed where the kernel has Landlock; a loud line where it has not.
    On,
    /// Not sandboxed (recorded in the results and the summary).
    None,
    /// Sandboxed, or the run is refused (exit 1) where the kernel has no Landlock.
    Required,
}

/// The default sandbox, widened.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SandboxPaths {
    /// Files and folders the command may also read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read: Vec<String>,
    /// Files and folders the command may also read and write.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write: Vec<String>,
    /// A kernel without Landlock is an error.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
}

/// `network:` of a command pipeline.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Network {
    #[default]
    Host,
    None,
}

impl Network {
    fn is_host(&self) -> bool {
        *self == Network::Host
    }
}

/// One rule of a `kinds:` mapping: a taxonomy kind, and regular expressions searched in the
/// finding's fields; every pattern given must match (at least one is required).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KindRule {
    pub kind: Kind,
    /// Searched in the finding's `class` (seed 001: correctness, coverage, test-failure, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Searched in the finding's `validator`, for verifiers that write one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validator: Option<String>,
    /// Searched in the finding's `rule` (`<validator>/<rule>`), for verifiers that write one:
    /// the reference gate's findings are typed by an exact pattern on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Searched in the finding's `title`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Searched in the finding's `description`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// An external fixer, run between rounds with `$GATEBENCH_LAST_REPORT` set.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FixerSpec {
    /// An argv list or a string run by `sh -c`, as for the verifier.
    pub command: CommandLine,
    /// Seconds before the fixer's process group is killed (default 600).
    #[serde(default = "ten_minutes")]
    pub timeout_secs: f64,
}

fn ten_minutes() -> f64 {
    600.0
}

/// A command line: an argv list, or one string for `sh -c`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandLine {
    Argv(Vec<String>),
    Shell(String),
}

impl CommandLine {
    /// The command as one line, for names and messages.
    pub fn display(&self) -> String {
        match self {
            CommandLine::Argv(argv) => argv.join(" "),
            CommandLine::Shell(s) => s.clone(),
        }
    }
}

impl Serialize for CommandLine {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            CommandLine::Argv(argv) => argv.serialize(s),
            CommandLine::Shell(line) => line.serialize(s),
        }
    }
}

// A visitor rather than `#[serde(untagged)]`, whose errors do not say what was expected.
impl<'de> Deserialize<'de> for CommandLine {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = CommandLine;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of strings (program and arguments) or a string (run by sh -c)")
            }
            fn visit_str<E: serde::de::Error>(
                self,
                v: &str,
            ) -> std::result::Result<Self::Value, E> {
                Ok(CommandLine::Shell(v.to_owned()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let mut argv = Vec::new();
                while let Some(arg) = seq.next_element::<String>()? {
                    argv.push(arg);
                }
                Ok(CommandLine::Argv(argv))
            }
        }
        d.deserialize_any(Visitor)
    }
}

impl JsonSchema for CommandLine {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CommandLine".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A list of strings (program and arguments, run as is) or a string (run by `sh -c`).",
            "oneOf": [
                {"type": "array", "items": {"type": "string"}, "minItems": 1},
                {"type": "string", "minLength": 1}
            ]
        })
    }
}

/// The bars a run must meet. Absent keys take the strict defaults: no false pass, full recall, no
/// false alarm, no error, no round count off.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Thresholds {
    #[serde(default)]
    pub max_false_pass_rate: f64,
    #[serde(default = "full")]
    pub min_recall: f64,
    #[serde(default)]
    pub max_false_alarms: u64,
    /// Errors and timeouts together.
    #[serde(default)]
    pub max_errors: u64,
    /// Trials whose convergence round differs from the fixture's expectation.
    #[serde(default)]
    pub max_rounds_off: u64,
    /// Fixtures whose trials disagree (a good outcome in some trials, not all): a detection that
    /// holds only sometimes is not a detection.
    #[serde(default)]
    pub max_flaky: u64,
    /// Optional minimum recall per category: a category name, or `"*"` for every category not
    /// named. Each category below its bar is a broken threshold of its own (exit 2).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub min_category_recall: BTreeMap<String, f64>,
    /// Optional: the least share of caught omission trials whose findings point at the locus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_localization: Option<f64>,
    /// Optional: the least share of FAIL-level findings on omission fixtures that point at the
    /// locus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_finding_precision: Option<f64>,
    /// Optional: the least Requirement Recall (seed 004 16.2): planted requirement ids named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_requirement_recall: Option<f64>,
    /// Optional: the least Obligation Recall (seed 004 16.2): planted obligation ids named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_obligation_recall: Option<f64>,
    /// A committed results file, relative to this scenario, that the run must not regress
    /// against (the ratchet): any fixture that newly passes falsely, is newly missed, newly
    /// alarms or newly errors breaks the run (exit 2), even while the absolute bars hold. Only
    /// fixture ids and outcomes are compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
}

fn full() -> f64 {
    1.0
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            max_false_pass_rate: 0.0,
            min_recall: 1.0,
            max_false_alarms: 0,
            max_errors: 0,
            max_rounds_off: 0,
            max_flaky: 0,
            min_category_recall: BTreeMap::new(),
            min_localization: None,
            min_finding_precision: None,
            min_requirement_recall: None,
            min_obligation_recall: None,
            baseline: None,
        }
    }
}

/// The most parallel trials (`--jobs`, `jobs:`): each is a thread with its own stack and
/// repository; far more than the cores only exhausts memory and file handles.
pub const MAX_JOBS: usize = 256;
/// The most trials per fixture (`--trials`, `trials:`): a run holds a record per trial, so a count
/// far past what any pass^k needs only exhausts memory before the first trial starts.
pub const MAX_TRIALS: u32 = 1000;
/// The most rounds per trial (`--max-rounds`, `max_rounds:`).
pub const MAX_ROUNDS: u32 = 100;
/// The most re-runs of a trial that ended in `error` or `timeout` (`--retries`, `retries:`).
pub const MAX_RETRIES: u32 = 10;

/// The longest scenario name, in characters. It is part of every run id (a folder name of at most
/// 255 bytes, with the time stamp, a matrix pipeline's name of up to 64, a shard and a process id);
/// `check` and `run` both refuse a longer one.
pub const MAX_SCENARIO_NAME: usize = 128;

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
    let kind = pipeline
        .get("kind")
        .and_then(|k| k.as_str())
        .unwrap_or("builtin");
    let allowed: Vec<String> = match kind {
        "command" => {
            let schema = schemars::schema_for!(CommandSpec);
            schema
                .get("properties")
                .and_then(|p| p.as_object())
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default()
        }
        _ => Vec::new(),
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
                format!("unknown key `{key}` under `pipeline` of kind `{kind}`: {expected}"),
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

fn globset(globs: &[String]) -> Result<GlobSet> {
    let mut builder = GlobSetBuilder::new();
    for g in globs {
        builder.add(
            Glob::new(g)
                .map_err(|e| Error::invalid("--filter", format!("invalid glob `{g}`: {e}")))?,
        );
    }
    builder
        .build()
        .map_err(|e| Error::invalid("--filter", e.to_string()))
}

/// The fixtures a selection (and optional extra id filters, all of which must match) picks from
/// the corpus, plus the golden of each picked omission fixture. Sorted by id.
pub fn select<'c>(
    corpus: &'c Corpus,
    selection: &Selection,
    filters: &[String],
) -> Result<Vec<Entry<'c>>> {
    let picker = picker(selection, filters)?;
    let mut ids: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
    for f in corpus
        .entries()
        .filter(|f| picker(f.id(), f.tags(), f.category()))
    {
        ids.insert(f.id());
        if let Some(golden) = f.golden() {
            ids.insert(golden);
        }
    }
    Ok(ids.into_iter().filter_map(|id| corpus.entry(id)).collect())
}

/// Whether a fixture (its id, tags and category) is one `selection` and `filters` pick: what
/// `select` uses, and what the unviable mutants of a run are counted by.
pub fn picker<'s>(
    selection: &'s Selection,
    filters: &'s [String],
) -> Result<impl Fn(&str, &[String], &str) -> bool + 's> {
    let include = globset(&selection.include)?;
    let exclude = globset(&selection.exclude)?;
    let filter = globset(filters)?;
    Ok(move |id: &str, tags: &[String], category: &str| {
        include.is_match(id)
            && !exclude.is_match(id)
            && (selection.tags.is_empty() || tags.iter().any(|t| selection.tags.contains(t)))
            && (selection.categories.is_empty()
                || selection.categories.iter().any(|c| c == category))
            && (filters.is_empty() || filter.is_match(id))
    })
}
