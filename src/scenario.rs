//! Scenario files (`scenarios/*.yaml`): which fixtures, which pipeline, trials, rounds, jobs and
//! thresholds. The serde types here generate `schemas/scenario.schema.json`.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::corpus::{Corpus, Fixture};
use crate::error::{Error, Result};
use crate::yaml;

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
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum PipelineSpec {
    /// gatebench's reference gate (the embedded default).
    #[default]
    Builtin,
    /// The document-style checker of seed 004 section 2.1 (artifacts exist, PASS text, exit 0,
    /// log hash), for comparison.
    Legacy,
}

impl PipelineSpec {
    pub fn name(&self) -> &'static str {
        match self {
            PipelineSpec::Builtin => "builtin",
            PipelineSpec::Legacy => "legacy",
        }
    }
}

/// The bars a run must meet. Absent keys take the strict defaults: no false pass, full recall, no
/// false alarm, no error, no round count off.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
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
        }
    }
}

/// A loaded scenario and where it came from.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub file: PathBuf,
    pub spec: ScenarioFile,
}

impl Scenario {
    pub fn load(path: &Path) -> Result<Scenario> {
        let parsed = yaml::load::<ScenarioFile>(path)?;
        let spec = parsed.value;
        let at = |key: &str, value: &str, message: String| {
            Error::invalid_at(path, yaml::locate(&parsed.text, key, value), message)
        };
        if spec.trials == 0 {
            return Err(at("trials", "0", "`trials` must be 1 or more".into()));
        }
        if spec.max_rounds == 0 {
            return Err(at(
                "max_rounds",
                "0",
                "`max_rounds` must be 1 or more".into(),
            ));
        }
        for (key, value) in [
            ("max_false_pass_rate", spec.thresholds.max_false_pass_rate),
            ("min_recall", spec.thresholds.min_recall),
        ] {
            if !(0.0..=1.0).contains(&value) {
                return Err(at(key, key, format!("`{key}` must be between 0 and 1")));
            }
        }
        for glob in spec.fixtures.include.iter().chain(&spec.fixtures.exclude) {
            Glob::new(glob)
                .map_err(|e| at("include", glob, format!("invalid glob `{glob}`: {e}")))?;
        }
        Ok(Scenario {
            file: path.to_path_buf(),
            spec,
        })
    }

    /// The fixtures folder this scenario names.
    pub fn fixtures_dir(&self) -> PathBuf {
        let base = self.file.parent().unwrap_or(Path::new("."));
        base.join(self.spec.fixtures_dir.as_deref().unwrap_or("../fixtures"))
    }
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
) -> Result<Vec<&'c Fixture>> {
    let include = globset(&selection.include)?;
    let exclude = globset(&selection.exclude)?;
    let filter = globset(filters)?;
    let picked = |f: &Fixture| {
        include.is_match(&f.id)
            && !exclude.is_match(&f.id)
            && (selection.tags.is_empty() || f.tags.iter().any(|t| selection.tags.contains(t)))
            && (selection.categories.is_empty() || selection.categories.contains(&f.category))
            && (filters.is_empty() || filter.is_match(&f.id))
    };
    let mut ids: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
    for f in corpus.fixtures.iter().filter(|f| picked(f)) {
        ids.insert(&f.id);
        if let Some(golden) = &f.golden {
            ids.insert(golden);
        }
    }
    Ok(ids.into_iter().filter_map(|id| corpus.get(id)).collect())
}
