//! The fixture file format (`fixture.yaml`): the serde types, from which
//! `schemas/fixture.schema.json` is generated. Loaded into `Fixture`s (`corpus.rs`) by `loader/`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::corpus::taxonomy::{Kind, Signal, Tier};
use crate::error::Error;

use gatebench_report::Verdict;

/// One `fixture.yaml`. A golden has `base`; an omission fixture has `extends` and `plant`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FixtureFile {
    /// Unique id: lowercase letters, digits and dashes.
    pub id: String,
    /// One sentence: what the project is, or what was planted.
    pub description: String,
    /// The family, for per-category metrics (goldens use `golden`).
    pub category: String,
    #[serde(default)]
    pub tags: Vec<String>,
    /// Omission fixtures: the id of the golden this fixture is planted in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extends: Option<String>,
    /// Goldens: the folder (relative to the fixture) committed on `main`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// Goldens: the layer committed on the feature branch (HEAD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<Layer>,
    /// Goldens: a layer written to the index and the work tree, not committed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staged: Option<Layer>,
    /// Goldens: a layer written to the work tree only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unstaged: Option<Layer>,
    /// Goldens: check the feature branch out in a linked git worktree and verify there.
    #[serde(default)]
    pub worktree: bool,
    /// Omission fixtures: what is planted, and into which layer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plant: Option<Plant>,
    /// What a correct gate must say.
    pub expect: Expect,
    /// Scripted fixes, applied and committed after a round that did not pass.
    #[serde(default)]
    pub fixes: Vec<Fix>,
    /// The omission's tier (default `ledger`): `semantic` for one that only running the code
    /// reveals. Goldens are `ledger`.
    #[serde(default, skip_serializing_if = "Tier::is_ledger")]
    pub tier: Tier,
    /// With `tier: semantic`, and only then (required): whether the golden's own test suite fails
    /// on the fixture (`loud`) or stays green (`silent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<Signal>,
    /// Goldens only: how the golden's own test suite runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<Suite>,
}

/// How a golden's own test suite runs, in its materialized repository.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    /// The command, as one line split into words like a shell would (no shell runs it), e.g.
    /// `python3 -m pytest -v`.
    pub command: String,
    /// The time it may take, in seconds (default 120).
    #[serde(default = "Suite::default_timeout")]
    #[schemars(range(min = 1))]
    pub timeout_seconds: u64,
}

impl Suite {
    /// The default time limit of a suite, in seconds.
    pub const DEFAULT_TIMEOUT_SECONDS: u64 = 120;

    fn default_timeout() -> u64 {
        Self::DEFAULT_TIMEOUT_SECONDS
    }
}

impl FixtureFile {
    /// The text of its `fixture.yaml`: the schema line, `comment` (whole `#` lines), then its
    /// fields serialized. `import` and `mutate --write` both write fixtures with it.
    pub fn to_yaml(&self, comment: &str) -> Result<String, Error> {
        let yaml = yaml_serde::to_string(self)
            .map_err(|e| Error::Internal(format!("serialize {}: {e}", self.id)))?;
        Ok(format!(
            "# yaml-language-server: $schema=../../schemas/fixture.schema.json\n{comment}{yaml}"
        ))
    }
}

/// Files written over the previous layer, then paths deleted from it.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Layer {
    /// A folder (relative to the fixture) whose files are written over the previous layer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlay: Option<String>,
    /// Repository paths removed in this layer.
    #[serde(default)]
    pub delete: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LayerName {
    #[default]
    Head,
    Staged,
    Unstaged,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Plant {
    /// The layer the omission is planted in (default `head`).
    #[serde(default)]
    pub into: LayerName,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlay: Option<String>,
    #[serde(default)]
    pub delete: Vec<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The verdict of round 1.
    pub verdict: Verdict,
    /// Omission fixtures: the kind of omission planted, from the taxonomy (docs/TAXONOMY.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<Kind>,
    /// Omission fixtures: where the omission is, as any verifier's findings can point at it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locus: Vec<LocusEntry>,
    /// An extra check for the built-in gate only: reference-gate findings that must be reported
    /// (each matcher must match at least one finding). Other pipelines are scored on `kind` and
    /// `locus` alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<FindingMatcher>,
    /// The round at which the verdict is expected to become PASS, or `never`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<ExpectedRounds>,
}

/// One place an omission is: exactly one of `path` (with optional `lines`), `requirement`,
/// `obligation` or `task`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LocusEntry {
    /// A repository path as materialized (relative to the repository root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// With `path`: the lines `[START, END]`, 1-based and inclusive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<[u64; 2]>,
    /// A requirement id, e.g. `REQ-001`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requirement: Option<String>,
    /// A behaviour obligation id, e.g. `REQ-001-B04`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obligation: Option<String>,
    /// A task id, e.g. `T2`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
}

impl LocusEntry {
    /// The entry as one line: `src/a.py:3-9`, `obligation REQ-001-B04`.
    pub fn describe(&self) -> String {
        match (
            &self.path,
            self.lines,
            &self.requirement,
            &self.obligation,
            &self.task,
        ) {
            (Some(p), Some([a, b]), ..) if a == b => format!("{p}:{a}"),
            (Some(p), Some([a, b]), ..) => format!("{p}:{a}-{b}"),
            (Some(p), None, ..) => p.clone(),
            (None, _, Some(r), ..) => format!("requirement {r}"),
            (None, _, None, Some(o), _) => format!("obligation {o}"),
            (None, _, None, None, Some(t)) => format!("task {t}"),
            _ => "(empty)".into(),
        }
    }
}

/// Matches one reported finding; every key given must hold for the same finding.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindingMatcher {
    /// The validator (check) id, e.g. `task-set-complete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validator: Option<String>,
    /// The requirement id the finding names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requirement: Option<String>,
    /// The obligation id the finding names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obligation: Option<String>,
    /// The exact repository path of the finding's location.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// A regular expression searched in the finding's title and description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fix {
    /// Applied after this round when that round did not pass.
    pub after_round: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlay: Option<String>,
    #[serde(default)]
    pub delete: Vec<String>,
}

/// The round at which a fixture is expected to converge (PASS), or never.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpectedRounds {
    After(u32),
    Never,
}

impl Serialize for ExpectedRounds {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ExpectedRounds::After(n) => s.serialize_u32(*n),
            ExpectedRounds::Never => s.serialize_str("never"),
        }
    }
}

impl<'de> Deserialize<'de> for ExpectedRounds {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = ExpectedRounds;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a round number (1 or more) or `never`")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
                match u32::try_from(v) {
                    Ok(n) if n >= 1 => Ok(ExpectedRounds::After(n)),
                    _ => Err(E::custom("rounds must be 1 or more")),
                }
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
                u64::try_from(v)
                    .map_err(|_| E::custom("rounds must be 1 or more"))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                if v == "never" {
                    Ok(ExpectedRounds::Never)
                } else {
                    Err(E::custom(format!(
                        "expected a round number or `never`, found `{v}`"
                    )))
                }
            }
        }
        d.deserialize_any(Visitor)
    }
}

impl JsonSchema for ExpectedRounds {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ExpectedRounds".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "The round at which the verdict becomes PASS, or `never`.",
            "oneOf": [
                {"type": "integer", "minimum": 1},
                {"const": "never"}
            ]
        })
    }
}
