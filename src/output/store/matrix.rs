//! A matrix run's record (`pipelines:`): `matrix.json` (source of `schemas/matrix.schema.json`),
//! each pipeline's headline rates per category, kind, tier and signal, and each pair's differences with
//! Newcombe 95% intervals and the fixtures they disagree on; built from the pipelines' results
//! and read back. `render/matrix.rs` shows it.

use std::collections::BTreeMap;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::output::store::results::RunResults;
use crate::score::changes::{fixture_changes, FixtureChange};
use crate::score::metrics::{Metrics, ThresholdResult, HEADLINE_RATES};
use crate::score::outcome::Outcome;
use crate::score::rate::{difference_interval, Rate};

/// The version of `matrix.json`'s shape.
pub const SCHEMA_VERSION: u32 = 1;
/// The folder, in a matrix run's folder, that holds one complete run folder per pipeline.
pub const PIPELINES: &str = "pipelines";
/// The files a matrix run writes beside `pipelines/`.
pub const FILES: [&str; 4] = ["matrix.json", "summary.md", "junit.xml", "report.html"];

/// `matrix.json`: what a matrix run found, pipeline by pipeline and pair by pair. Each
/// pipeline's full record is its own `pipelines/<name>/results.json`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct MatrixResults {
    pub schema_version: u32,
    pub gatebench_version: String,
    pub run_id: String,
    pub scenario: String,
    pub scenario_file: String,
    /// RFC 3339.
    pub started_at: String,
    pub duration_ms: u64,
    /// The worst of the pipelines' exit codes, by the usual precedence (`exit_code.rs`).
    pub exit_code: i32,
    pub pipelines: Vec<PipelineSummary>,
    /// Every pair (earlier pipeline as base, later as new), differences `new - base`.
    pub pairs: Vec<PairDifferences>,
}

/// One pipeline of the matrix.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PipelineSummary {
    /// The name the scenario gives it.
    pub name: String,
    /// What ran (`builtin`, `legacy`, `command ...`).
    pub pipeline: String,
    /// Its run folder, relative to the matrix run's folder (`pipelines/<name>`).
    pub dir: String,
    pub run_id: String,
    /// Its own exit code: its thresholds judged against its trials.
    pub exit_code: i32,
    pub thresholds: Vec<ThresholdResult>,
    pub fixtures: u64,
    pub trials: u64,
    pub outcomes: BTreeMap<Outcome, u64>,
    pub errors: u64,
    pub rounds_off: u64,
    pub overall: Headline,
    pub per_category: BTreeMap<String, Headline>,
    /// Omission trials by the planted taxonomy kind.
    pub per_kind: BTreeMap<String, Headline>,
    /// Omission trials by tier (`ledger`, `semantic`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub per_tier: BTreeMap<String, Headline>,
    /// Semantic omission trials by signal (`loud`, `silent`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub per_signal: BTreeMap<String, Headline>,
}

/// The headline rates of a set of trials, with Wilson 95% intervals (`None`: nothing measured).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Headline {
    pub false_pass_rate: Option<Rate>,
    pub recall: Option<Rate>,
    pub false_alarm_rate: Option<Rate>,
    pub localization: Option<Rate>,
    pub typing: Option<Rate>,
    pub finding_precision: Option<Rate>,
    pub requirement_recall: Option<Rate>,
    pub obligation_recall: Option<Rate>,
}

impl Headline {
    pub fn of(m: &Metrics) -> Headline {
        let [fp, recall, fa, loc, typing, prec, req, obl] = m.headline();
        Headline {
            false_pass_rate: fp,
            recall,
            false_alarm_rate: fa,
            localization: loc,
            typing,
            finding_precision: prec,
            requirement_recall: req,
            obligation_recall: obl,
        }
    }

    /// (name as shown, rate), in the order every table shows them (`HEADLINE_RATES`).
    pub fn named(&self) -> [(&'static str, Option<Rate>); 8] {
        let values = [
            self.false_pass_rate,
            self.recall,
            self.false_alarm_rate,
            self.localization,
            self.typing,
            self.finding_precision,
            self.requirement_recall,
            self.obligation_recall,
        ];
        std::array::from_fn(|i| (HEADLINE_RATES[i], values[i]))
    }
}

/// Two pipelines compared on the same fixtures.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PairDifferences {
    pub base: String,
    pub new: String,
    pub overall: Vec<RateDifference>,
    /// Per category, every rate measured in both.
    pub per_category: BTreeMap<String, Vec<RateDifference>>,
    pub per_kind: BTreeMap<String, Vec<RateDifference>>,
    /// Per tier present in both, every rate measured in both.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub per_tier: BTreeMap<String, Vec<RateDifference>>,
    /// Per signal present in both, every rate measured in both.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub per_signal: BTreeMap<String, Vec<RateDifference>>,
    /// Fixtures whose outcomes differ between the two (as `compare` lists them: `new` against
    /// `base`).
    pub fixtures: Vec<FixtureChange>,
}

/// One rate in both pipelines and `new - base` with Newcombe's hybrid score 95% interval
/// (`rate.rs`); the difference is absent unless both measured the rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RateDifference {
    pub rate: String,
    pub base: Option<Rate>,
    pub new: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difference: Option<Difference>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Difference {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

fn differences(base: &Headline, new: &Headline) -> Vec<RateDifference> {
    base.named()
        .into_iter()
        .zip(new.named())
        .map(|((rate, b), (_, n))| RateDifference {
            rate: rate.to_owned(),
            base: b,
            new: n,
            difference: b
                .zip(n)
                .and_then(|(b, n)| difference_interval(&b, &n))
                .map(|(value, low, high)| Difference { value, low, high }),
        })
        .collect()
}

/// Per group present in both, the differences of the rates measured in both.
fn group_differences(
    base: &BTreeMap<String, Headline>,
    new: &BTreeMap<String, Headline>,
) -> BTreeMap<String, Vec<RateDifference>> {
    base.iter()
        .filter_map(|(group, b)| {
            let n = new.get(group)?;
            let measured: Vec<RateDifference> = differences(b, n)
                .into_iter()
                .filter(|d| d.difference.is_some())
                .collect();
            (!measured.is_empty()).then(|| (group.clone(), measured))
        })
        .collect()
}

fn summary_of(name: &str, results: &RunResults) -> PipelineSummary {
    let m = &results.metrics;
    let headlines = |groups: &BTreeMap<String, Metrics>| {
        groups
            .iter()
            .map(|(k, v)| (k.clone(), Headline::of(v)))
            .collect()
    };
    PipelineSummary {
        name: name.to_owned(),
        pipeline: results.pipeline.clone(),
        dir: format!("{PIPELINES}/{name}"),
        run_id: results.run_id.clone(),
        exit_code: results.exit_code,
        thresholds: results.thresholds.clone(),
        fixtures: m.overall.fixtures,
        trials: m.overall.trials,
        outcomes: m.overall.outcomes.clone(),
        errors: m.overall.errors,
        rounds_off: m.overall.rounds_off,
        overall: Headline::of(&m.overall),
        per_category: headlines(&m.per_category),
        per_kind: headlines(&m.per_kind),
        per_tier: headlines(&m.per_tier),
        per_signal: headlines(&m.per_signal),
    }
}

/// What describes the matrix run itself (the rest is computed from the pipelines' results).
#[derive(Debug, Clone)]
pub struct MatrixRun {
    pub run_id: String,
    pub scenario: String,
    pub scenario_file: String,
    pub started_at: String,
    pub duration_ms: u64,
}

/// The matrix of `runs` (name, results), in the scenario's order.
pub fn build(run: MatrixRun, runs: &[(String, &RunResults)]) -> MatrixResults {
    let pipelines: Vec<PipelineSummary> = runs
        .iter()
        .map(|(name, results)| summary_of(name, results))
        .collect();
    let mut pairs = Vec::new();
    for (i, (base_name, base)) in runs.iter().enumerate() {
        for (new_name, new) in runs.iter().skip(i + 1) {
            let (b, n) = (&pipelines[i], summary_named(&pipelines, new_name));
            pairs.push(PairDifferences {
                base: base_name.clone(),
                new: new_name.clone(),
                overall: differences(&b.overall, &n.overall),
                per_category: group_differences(&b.per_category, &n.per_category),
                per_kind: group_differences(&b.per_kind, &n.per_kind),
                per_tier: group_differences(&b.per_tier, &n.per_tier),
                per_signal: group_differences(&b.per_signal, &n.per_signal),
                fixtures: fixture_changes(&base.trials, &new.trials),
            });
        }
    }
    let thresholds: Vec<ThresholdResult> = runs
        .iter()
        .flat_map(|(_, r)| r.thresholds.iter().cloned())
        .collect();
    MatrixResults {
        schema_version: SCHEMA_VERSION,
        gatebench_version: env!("CARGO_PKG_VERSION").to_owned(),
        run_id: run.run_id,
        scenario: run.scenario,
        scenario_file: run.scenario_file,
        started_at: run.started_at,
        duration_ms: run.duration_ms,
        exit_code: crate::score::metrics::exit_code_of(&thresholds),
        pipelines,
        pairs,
    }
}

fn summary_named<'a>(pipelines: &'a [PipelineSummary], name: &str) -> &'a PipelineSummary {
    pipelines
        .iter()
        .find(|p| p.name == name)
        .expect("every run has a summary")
}

/// Reads a `matrix.json`.
pub fn read(path: &Path) -> Result<MatrixResults> {
    let text = crate::corpus::loader::yaml::read_text(path)?;
    serde_json::from_str(&text).map_err(|e| {
        Error::invalid_at(
            path,
            Some(crate::error::Position {
                line: e.line(),
                column: e.column(),
            }),
            format!("not a matrix.json: {e}"),
        )
    })
}
