//! Scenario files (`scenarios/*.yaml`): which fixtures, which pipeline, trials, rounds, jobs and
//! thresholds. The serde types here generate `schemas/scenario.schema.json`; loading and checking a
//! file is `scenario/load.rs`, picking the fixtures `scenario/select.rs`.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use strum::EnumDiscriminants;

use crate::corpus::taxonomy::Kind;

mod load;
mod select;

pub use load::Scenario;
pub use select::{picker, select};

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
    /// pair is compared (docs/GUIDE.md, "Compare verifiers in one run").
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
    /// `ledger` (default): mutants generated from the goldens' ledgers; `semantic`: the code and
    /// test mutants `fixtures/semantic-validation.json` proved by running the goldens' suites.
    #[serde(default)]
    pub tier: crate::corpus::taxonomy::Tier,
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
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema, EnumDiscriminants)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
// The kinds, named once: `PipelineKind` is derived from these variants, so a new pipeline kind is
// one variant here and every `match` on the kind must handle it.
#[strum_discriminants(
    name(PipelineKind),
    derive(strum::IntoStaticStr, strum::EnumString, strum::Display, Hash),
    strum(serialize_all = "lowercase")
)]
// Loaded once per run and never stored in bulk: the size of the `Command` variant costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum PipelineSpec {
    /// gatebench's reference gate (the embedded default).
    Builtin {
        /// `light` (default) reads; `deep` also runs the tests: each receipt's command again, and
        /// each obligation's tests with its cited code neutralized (docs/GUIDE.md, "Deep mode").
        #[serde(default, skip_serializing_if = "Depth::is_light")]
        depth: Depth,
    },
    /// The document-style checker of the Loom plan (docs/CONCEPTS.md#loom-document-style-checker)
    /// (artifacts exist, PASS text, exit 0, log hash), for comparison.
    Legacy,
    /// Any external verifier, run as a process per round (docs/GUIDE.md, "External pipelines").
    Command(CommandSpec),
}

impl Default for PipelineSpec {
    fn default() -> PipelineSpec {
        PipelineSpec::builtin()
    }
}

impl PipelineSpec {
    pub fn kind(&self) -> PipelineKind {
        PipelineKind::from(self)
    }

    /// The reference gate, light.
    pub fn builtin() -> PipelineSpec {
        PipelineSpec::Builtin {
            depth: Depth::Light,
        }
    }
}

/// How far the reference gate goes: `light` reads, `deep` also runs the tests (the gate's own
/// type).
pub use gatebench_gate::Depth;

/// The name of the reference gate in deep mode, as results carry it (light: `builtin`).
pub const BUILTIN_DEEP: &str = "builtin:deep";

impl PipelineKind {
    /// The kind of the pipeline named `name` in a results file: `builtin`, `legacy`, or a command
    /// pipeline's `command: PROGRAM`; `None` for any other name.
    pub fn of_name(name: &str) -> Option<PipelineKind> {
        if let Ok(kind) = name.parse() {
            return Some(kind);
        }
        if name == BUILTIN_DEEP {
            return Some(PipelineKind::Builtin);
        }
        name.strip_prefix("command:").map(|_| PipelineKind::Command)
    }

    pub fn as_str(self) -> &'static str {
        self.into()
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
    /// The Landlock filesystem sandbox (docs/GUIDE.md, "The sandbox"): on by default; `none` turns it
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
    /// Searched in the finding's `class` (docs/CONCEPTS.md#verify-finding-classes: correctness,
    /// coverage, test-failure, ...).
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
    /// Optional: the least Requirement Recall (docs/CONCEPTS.md#loom-eval-metrics): planted
    /// requirement ids named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_requirement_recall: Option<f64>,
    /// Optional: the least Obligation Recall (docs/CONCEPTS.md#loom-eval-metrics): planted
    /// obligation ids named.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A pipeline kind's name is the `kind:` its scenario entry is written with, and reads back.
    #[test]
    fn a_pipeline_kind_is_named_as_its_spec_is_written() {
        let command: CommandSpec = yaml_serde::from_str("command: ./verify.sh").unwrap();
        for spec in [
            PipelineSpec::builtin(),
            PipelineSpec::Legacy,
            PipelineSpec::Command(command),
        ] {
            let written = serde_json::to_value(&spec).unwrap();
            let kind = spec.kind();
            assert_eq!(written["kind"], kind.as_str());
            assert_eq!(kind.to_string(), kind.as_str());
            assert_eq!(PipelineKind::of_name(kind.as_str()), Some(kind));
        }
        assert_eq!(
            PipelineKind::of_name("command: ./verify.sh"),
            Some(PipelineKind::Command)
        );
        assert_eq!(PipelineKind::of_name("mystery"), None);
    }
}
