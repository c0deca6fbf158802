//! `results.json`: the record of a run, versioned and written atomically. It is the source of
//! truth every other output (terminal, summary.md) is rendered from.

use std::collections::BTreeMap;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::corpus::model::fixture::{ExpectedRounds, FindingMatcher};
use crate::corpus::scenario::PipelineKind;
use crate::corpus::taxonomy::{Signal, Tier};
use crate::corpus::Fixture;
use crate::error::{Error, Result};
use crate::output::store::objects::{self, Store};
use crate::output::store::spool::{Record, Records, Trials};
use crate::score::metrics::{MetricsReport, ThresholdResult};
use crate::score::record::TrialRecord;
use crate::score::trials::FixtureTrials;
use gatebench_report::Verdict;

/// Bumped when a consumer of `results.json` would misread the new shape. Version 2 keeps each
/// round's report, process and fixer records in the run's object store (`objects.rs`); version 1
/// files (everything inline) are still read.
pub const SCHEMA_VERSION: u32 = 2;

/// The oldest `schema_version` still read.
pub const OLDEST_READ: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RunResults {
    pub schema_version: u32,
    pub gatebench_version: String,
    pub run_id: String,
    pub scenario: ScenarioInfo,
    pub pipeline: String,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub duration_ms: u64,
    pub jobs: usize,
    pub trial_count: u32,
    pub max_rounds: u32,
    /// Sorted by id.
    #[schemars(with = "Vec<FixtureInfo>")]
    pub fixtures: Records<FixtureInfo>,
    /// Sorted by fixture id, then trial.
    #[schemars(with = "Vec<TrialRecord>")]
    pub trials: Trials,
    pub metrics: MetricsReport,
    pub thresholds: Vec<ThresholdResult>,
    pub exit_code: i32,
    /// sha256 of the scenario's pipeline spec: shards of different pipelines are not merged.
    #[serde(default)]
    pub pipeline_fingerprint: String,
    /// Set when this run is one shard of a sharded run (`--shard i/n`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<crate::shard::ShardInfo>,
    /// For a merged run: the run ids of its shards, in shard order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<String>,
    /// The ratchet, when the scenario names a baseline: the fixtures that regressed against it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratchet: Option<crate::score::ratchet::RatchetResult>,
    /// Per fixture, across its trials: how many were good, whether they agreed, cost and time.
    /// Computed from `trials`; left out of a one-trial run (its file, and a run's memory), where
    /// it would restate each trial (reading the file computes it again).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixture_trials: Vec<FixtureTrials>,
    /// What the result cache did in this run (external pipelines only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheStats>,
    /// Set when this run re-scored a recorded one (`gatebench replay`): the recorded run's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay_of: Option<String>,
    /// How an external pipeline's processes were isolated (sandbox, containment, network).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<crate::pipeline::round::IsolationInfo>,
    /// Each trial's opaque case id (what the pipeline saw in `GATEBENCH_CASE` and in folder
    /// names) and the fixture and trial it stands for.
    #[serde(default, skip_serializing_if = "Cases::is_empty")]
    pub cases: Cases,
    /// Where the trials' references point while they are not restored (a run being written):
    /// renderers read round 1's report from here. Not part of the file.
    #[serde(skip)]
    #[schemars(skip)]
    pub objects: Option<Store>,
    /// Other stores the trials' references may point into (a merge's shards): writing the run
    /// links the objects it references from them (`outputs::write_all_with`). Not part of the file.
    #[serde(skip)]
    #[schemars(skip)]
    pub sources: Vec<Store>,
}

/// The fixture and trial behind a case id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CaseRef {
    pub fixture: String,
    pub trial: u32,
}

/// Each trial's case id and the fixture and trial it stands for: a map read from a results file
/// (or merged), or, for a run being written, computed from its fixtures as it is serialized, in
/// their order (a run of 10,000 fixtures held 10,000 of each id here).
#[derive(Debug, Clone, Default)]
pub struct Cases(CasesRepr);

#[derive(Debug, Clone)]
enum CasesRepr {
    Map(BTreeMap<String, CaseRef>),
    /// Every trial `0..trials` of every fixture, whose case ids the runner computed from the
    /// scenario's name (`workdir::case_id`).
    Computed {
        scenario: String,
        fixtures: Records<FixtureInfo>,
        trials: u32,
    },
}

impl Default for CasesRepr {
    fn default() -> Self {
        CasesRepr::Map(BTreeMap::new())
    }
}

impl Cases {
    /// The case ids of every trial `0..trials` of every fixture in `fixtures`, run in `scenario`.
    pub fn computed(scenario: &str, fixtures: Records<FixtureInfo>, trials: u32) -> Cases {
        Cases(CasesRepr::Computed {
            scenario: scenario.to_owned(),
            fixtures,
            trials,
        })
    }

    pub fn len(&self) -> usize {
        match &self.0 {
            CasesRepr::Map(m) => m.len(),
            CasesRepr::Computed {
                fixtures, trials, ..
            } => fixtures.len() * *trials as usize,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether every case id is the one the runner computes (`workdir::case_id`) from the
    /// scenario's name, the fixture and the trial.
    pub fn are_computed(&self) -> bool {
        matches!(self.0, CasesRepr::Computed { .. })
    }

    /// Every case id with its fixture and trial (a computed map reads the fixtures back).
    pub fn iter(&self) -> Box<dyn Iterator<Item = (String, CaseRef)> + '_> {
        match &self.0 {
            CasesRepr::Map(m) => Box::new(m.iter().map(|(k, v)| (k.clone(), v.clone()))),
            CasesRepr::Computed {
                scenario,
                fixtures,
                trials,
            } => Box::new(fixtures.iter().flat_map(move |f| {
                (0..*trials).map(move |trial| {
                    let case = crate::repo::workdir::case_id(scenario, &f.id, trial);
                    let fixture = f.id.clone();
                    (case, CaseRef { fixture, trial })
                })
            })),
        }
    }

    /// The fixture and trial of case id `case`.
    pub fn get(&self, case: &str) -> Option<CaseRef> {
        match &self.0 {
            CasesRepr::Map(m) => m.get(case).cloned(),
            CasesRepr::Computed { .. } => self.iter().find(|(c, _)| c == case).map(|(_, r)| r),
        }
    }
}

impl FromIterator<(String, CaseRef)> for Cases {
    fn from_iter<I: IntoIterator<Item = (String, CaseRef)>>(iter: I) -> Self {
        Cases(CasesRepr::Map(iter.into_iter().collect()))
    }
}

impl Serialize for Cases {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match &self.0 {
            CasesRepr::Map(m) => m.serialize(s),
            CasesRepr::Computed { fixtures, .. } => {
                let written = s.collect_map(self.iter());
                // A fixture that could not be read back would leave the map short.
                fixtures.check().map_err(serde::ser::Error::custom)?;
                written
            }
        }
    }
}

impl<'de> Deserialize<'de> for Cases {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        BTreeMap::deserialize(d).map(|m| Cases(CasesRepr::Map(m)))
    }
}

impl JsonSchema for Cases {
    /// Written in place, as the map it is serialized as.
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        <BTreeMap<String, CaseRef>>::schema_name()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <BTreeMap<String, CaseRef>>::json_schema(g)
    }
}

/// Trials taken from the result cache and trials run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    /// `--no-cache`: nothing was read (finished trials were still written).
    pub disabled: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ScenarioInfo {
    pub name: String,
    pub file: String,
    /// The bars the run was judged by, as the scenario states them (so `merge` can judge again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thresholds: Option<crate::corpus::scenario::Thresholds>,
    /// In a matrix run (`pipelines:`), the name of the entry this run is of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix_pipeline: Option<String>,
}

/// What a fixture expects, recorded beside the outcomes so a results file can be read alone.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct FixtureInfo {
    pub id: String,
    pub category: String,
    pub description: String,
    /// The golden an omission fixture is planted in; `None` for a golden.
    pub golden: Option<String>,
    pub expected_verdict: Verdict,
    pub expected_findings: Vec<FindingMatcher>,
    pub expected_rounds: Option<ExpectedRounds>,
    /// The fixture's tier (`ledger` for goldens, and in results written before tiers).
    #[serde(default)]
    pub tier: Tier,
    /// With `tier: semantic`: whether the golden's own test suite fails on the fixture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<Signal>,
    pub content_hash: String,
    /// A hash of what is materialized (layers, fixes, worktree) without the expectation: replay
    /// re-scores a recorded trial only when this is unchanged.
    #[serde(default)]
    pub repo_hash: String,
}

impl Record for FixtureInfo {
    const NAME: &'static str = "fixture";
    fn key(&self) -> (&str, u32) {
        (&self.id, 0)
    }
}

impl FixtureInfo {
    pub fn of(fixture: &Fixture) -> Self {
        FixtureInfo {
            id: fixture.id.clone(),
            category: fixture.category.clone(),
            description: fixture.description.clone(),
            golden: fixture.golden.clone(),
            expected_verdict: fixture.expect.verdict,
            expected_findings: fixture
                .expect
                .findings
                .iter()
                .map(|m| m.spec.clone())
                .collect(),
            expected_rounds: fixture.expect.rounds,
            tier: fixture.tier,
            signal: fixture.signal,
            content_hash: fixture.content_hash.clone(),
            // Empty when the fixture's files can no longer be composed (its trials say why).
            repo_hash: crate::corpus::model::hash::repo_hash(fixture).unwrap_or_default(),
        }
    }
}

impl RunResults {
    /// Restores in full what the trials hold by reference, from the run's object store
    /// (`objects`): a run just written keeps references only, to keep memory flat.
    pub fn resolve(&mut self) -> Result<()> {
        if !self.trials.iter().any(|t| objects::has_references(&t)) {
            return Ok(());
        }
        let Some(store) = self.objects.clone() else {
            return Err(Error::Internal(format!(
                "run {}: trials hold references but no object store is known",
                self.run_id
            )));
        };
        for trial in self.trials.to_mut()? {
            store.resolve(trial)?;
        }
        Ok(())
    }

    /// The kind of pipeline that ran, from its name; an error naming it when it is none of the
    /// kinds (a file written by another version, or changed).
    pub fn pipeline_kind(&self) -> Result<PipelineKind> {
        PipelineKind::of_name(&self.pipeline).ok_or_else(|| {
            // The run's folder when the file was read, else its id.
            let run = match &self.objects {
                Some(store) => store.dir().parent().unwrap_or(Path::new(".")).to_path_buf(),
                None => self.run_id.clone().into(),
            };
            Error::invalid(
                run,
                format!(
                    "its results name pipeline `{}`, of no known kind (builtin, legacy or \
                     command): it cannot be scored",
                    self.pipeline
                ),
            )
        })
    }
}

/// Reads a results file. What its trials hold by reference stays in the run's object store
/// (`objects/` beside it, `results.objects`): readers restore one trial at a time
/// (`objects::resolved`), so memory holds one trial's reports, never the whole run's (2 GB for a
/// run of 10,000 trials restored at once).
pub fn read(path: &Path) -> Result<RunResults> {
    let text = crate::corpus::loader::yaml::read_text(path)?;
    let mut results = parse(path, &text)?;
    drop(text);
    results.objects = Some(Store::beside(path));
    if results.fixture_trials.is_empty() {
        results.fixture_trials = crate::score::trials::per_fixture(&results.trials);
    }
    Ok(results)
}

/// Parses the text of a results file read from `path`.
pub fn parse(path: &Path, text: &str) -> Result<RunResults> {
    // gatebench never writes a key twice; a parser would keep the last (an outcome given twice,
    // a second `trials` list): such a file was changed, and is refused.
    if let Some((key, line)) = gatebench_report::json::duplicate_keys(text)
        .into_iter()
        .next()
    {
        return Err(Error::invalid_at(
            path,
            Some(crate::error::Position {
                line: line as usize,
                column: 1,
            }),
            format!(
                "the key `{key}` is given twice in one object: not a results file gatebench wrote"
            ),
        ));
    }
    let results: RunResults = serde_json::from_str(text).map_err(|e| {
        Error::invalid_at(
            path,
            Some(crate::error::Position {
                line: e.line(),
                column: e.column(),
            }),
            format!("not a gatebench results file: {e}"),
        )
    })?;
    if !(OLDEST_READ..=SCHEMA_VERSION).contains(&results.schema_version) {
        return Err(Error::invalid(
            path,
            format!(
                "results schema_version {} is not one this gatebench reads \
                 ({OLDEST_READ} to {SCHEMA_VERSION}); a newer gatebench wrote it",
                results.schema_version
            ),
        ));
    }
    // Ids become folder and file names (trial logs, objects): each checked to its format first.
    check_ids(path, &results)?;
    Ok(results)
}

/// Every id a results file holds, checked to its format (`ids.rs`) before anything is built
/// from it: the run's id and those of the runs it was merged from or replays, its matrix
/// pipeline's name, its fixtures' and trials' ids, each trial's number (below the run's trial
/// count), its case map, and every object reference of every round.
fn check_ids(file: &Path, r: &RunResults) -> Result<()> {
    use crate::ids;
    ids::run_id(file, &r.run_id)?;
    for id in r.merged_from.iter().chain(&r.replay_of) {
        ids::run_id(file, id)?;
    }
    if let Some(name) = &r.scenario.matrix_pipeline {
        ids::pipeline_name(file, name)?;
    }
    for f in r.fixtures.iter() {
        ids::fixture_id(file, &f.id)?;
        if let Some(golden) = &f.golden {
            ids::fixture_id(file, golden)?;
        }
    }
    for t in r.trials.iter() {
        ids::fixture_id(file, &t.fixture)?;
        ids::trial_number(file, &t.fixture, t.trial, r.trial_count)?;
        for round in &t.rounds {
            for hash in [
                &round.report_ref,
                &round.process_ref,
                &round.fixer_ref,
                &round.fix_diff_ref,
            ]
            .into_iter()
            .flatten()
            {
                ids::object_ref(file, hash)?;
            }
        }
    }
    for (case, c) in r.cases.iter() {
        ids::case_id(file, &case)?;
        ids::fixture_id(file, &c.fixture)?;
        ids::trial_number(file, &c.fixture, c.trial, r.trial_count)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::workdir::case_id;

    fn info(id: &str) -> FixtureInfo {
        FixtureInfo {
            id: id.into(),
            category: "code".into(),
            description: String::new(),
            golden: Some("g".into()),
            expected_verdict: Verdict::Fail,
            expected_findings: Vec::new(),
            expected_rounds: None,
            tier: Tier::Ledger,
            signal: None,
            content_hash: String::new(),
            repo_hash: String::new(),
        }
    }

    /// A run's case map, computed from its fixtures as it is written, is the map of every
    /// (fixture, trial) by its case id, as the runner names the trial's folder; it reads back as
    /// that map.
    #[test]
    fn computed_cases_are_every_trial_of_every_fixture_by_its_case_id() {
        let fixtures: Records<FixtureInfo> = vec![info("b"), info("a")].into();
        let cases = Cases::computed("scale", fixtures, 2);
        let mut expected = BTreeMap::new();
        for fixture in ["a", "b"] {
            for trial in [0, 1] {
                let case = case_id("scale", fixture, trial);
                let fixture = fixture.to_owned();
                expected.insert(case, CaseRef { fixture, trial });
            }
        }
        assert_eq!(cases.len(), 4);
        assert!(cases.are_computed());
        let json = serde_json::to_value(&cases).unwrap();
        assert_eq!(json, serde_json::to_value(&expected).unwrap());
        let read: Cases = serde_json::from_value(json).unwrap();
        assert!(!read.are_computed());
        for (case, r) in &expected {
            assert_eq!(cases.get(case).as_ref(), Some(r));
            assert_eq!(read.get(case).as_ref(), Some(r));
        }
        assert_eq!(cases.get("000000000000"), None);
        assert_eq!(read.iter().collect::<BTreeMap<_, _>>(), expected);
    }
}
