//! Metrics over trial outcomes (rates with Wilson 95% intervals, overall and per category), and
//! the scenario's thresholds judged against them, which decide the exit code.

use std::borrow::Borrow;
use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::corpus::scenario::Thresholds;
use crate::corpus::taxonomy::{Kind, Signal, Tier};
use crate::exit_code;
use crate::score::cost::CostTotal;
use crate::score::outcome::{ConvergenceStatus, Outcome};
use crate::score::rate::Rate;
use crate::score::record::TrialRecord;
use crate::score::trials::{FixtureTrials, PerFixture, Planted, RepeatMetrics, RepeatSums};

/// Counts and rates over a set of trials.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Metrics {
    pub fixtures: u64,
    pub trials: u64,
    pub outcomes: BTreeMap<Outcome, u64>,
    /// false-pass / (detected + wrong-reason + false-pass).
    pub false_pass_rate: Option<Rate>,
    /// detected / (detected + wrong-reason + false-pass).
    pub recall: Option<Rate>,
    /// false-alarm / (passed + false-alarm).
    pub false_alarm_rate: Option<Rate>,
    /// Errors and timeouts.
    pub errors: u64,
    /// Trials whose convergence round differs from the expectation.
    pub rounds_off: u64,
    /// Trials by the round at which they first passed (`"never"` for none), among trials that
    /// state an expectation.
    pub rounds: BTreeMap<String, u64>,
    /// Wall time of all trials, summed.
    pub total_ms: u64,
    /// Rounds run (verify, fix, re-verify) over all trials: what convergence cost in rounds.
    #[serde(default)]
    pub rounds_run: u64,
    /// Wall time of those rounds (the pipeline's runs, without materialization and fixes), summed.
    #[serde(default)]
    pub round_ms: u64,
    /// Cost of every round and fixer run, summed (unknown where not reported).
    #[serde(default)]
    pub cost: CostTotal,
    /// Trials whose pipeline changed the repository it was verifying.
    #[serde(default)]
    pub modified_repo: u64,
    /// pass^k, pass@1, disagreement and flaky fixtures, when fixtures ran more than once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<RepeatMetrics>,
    /// What the reports said about the planted ground truth (docs/TAXONOMY.md).
    #[serde(default)]
    pub ground_truth: GroundTruthMetrics,
}

/// The verifier-neutral figures, from each report alone (docs/SCORING.md says why each is what it
/// is). Trials with no usable report (errors, timeouts) are not in them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GroundTruthMetrics {
    /// localized / caught: of the omission trials given the expected FAIL or BLOCKED, the share
    /// with a finding at the locus.
    pub localization: Option<Rate>,
    /// typed / caught: of those, the share with a finding at the locus that the pipeline's
    /// mapping gives the planted kind.
    pub typing: Option<Rate>,
    /// On omission trials, FAIL-level findings at the locus / all FAIL-level findings.
    pub finding_precision: Option<Rate>,
    /// FAIL-level findings on golden trials, summed.
    pub golden_fail_findings: u64,
    /// Golden trials with a usable report.
    pub golden_trials: u64,
    /// FAIL-level findings per golden trial (noise); `None` without golden trials.
    pub noise: Option<f64>,
    /// Requirement Recall (docs/CONCEPTS.md#loom-eval-metrics): planted requirement ids named /
    /// planted.
    pub requirement_recall: Option<Rate>,
    /// Obligation Recall (docs/CONCEPTS.md#loom-eval-metrics): planted obligation ids named /
    /// planted.
    pub obligation_recall: Option<Rate>,
}

/// The sums behind [`GroundTruthMetrics`], added one trial at a time.
#[derive(Debug, Default)]
struct GroundTruthSums {
    caught: u64,
    localized: u64,
    typed: u64,
    fail: u64,
    fail_at: u64,
    req: u64,
    req_named: u64,
    obl: u64,
    obl_named: u64,
    golden_fail: u64,
    golden_trials: u64,
}

impl GroundTruthSums {
    fn add(&mut self, t: &TrialRecord) {
        if t.golden {
            if let Some(n) = t.fail_findings {
                self.golden_fail += u64::from(n);
                self.golden_trials += 1;
            }
            return;
        }
        let Some(g) = &t.ground_truth else { return };
        if g.caught {
            self.caught += 1;
            self.localized += u64::from(g.localized);
            self.typed += u64::from(g.typed);
        }
        self.fail += u64::from(g.fail_findings);
        self.fail_at += u64::from(g.fail_findings_at_locus);
        self.req += u64::from(g.requirements_planted);
        self.req_named += u64::from(g.requirements_named);
        self.obl += u64::from(g.obligations_planted);
        self.obl_named += u64::from(g.obligations_named);
    }

    fn finish(&self) -> GroundTruthMetrics {
        let rate = |k, n| (n > 0).then(|| Rate::new(k, n));
        GroundTruthMetrics {
            localization: rate(self.localized, self.caught),
            typing: rate(self.typed, self.caught),
            finding_precision: rate(self.fail_at, self.fail),
            golden_fail_findings: self.golden_fail,
            golden_trials: self.golden_trials,
            noise: (self.golden_trials > 0)
                .then(|| self.golden_fail as f64 / self.golden_trials as f64),
            requirement_recall: rate(self.req_named, self.req),
            obligation_recall: rate(self.obl_named, self.obl),
        }
    }
}

/// [`Metrics`] summed one trial at a time, and what depends on a fixture's trials together (the
/// fixture count, pass^k) one finished fixture at a time.
#[derive(Debug, Default)]
struct Tally {
    m: Metrics,
    ground_truth: GroundTruthSums,
    repeat: RepeatSums,
}

impl Tally {
    fn add(&mut self, t: &TrialRecord) {
        let m = &mut self.m;
        m.trials += 1;
        *m.outcomes.entry(t.outcome).or_default() += 1;
        m.total_ms += t.duration_ms;
        m.rounds_run += t.rounds.len() as u64;
        m.round_ms += t.rounds.iter().map(|r| r.duration_ms).sum::<u64>();
        m.cost.merge(&t.cost);
        m.modified_repo += u64::from(t.modified_repo);
        if let Some(c) = &t.convergence {
            if c.status != ConvergenceStatus::AsExpected {
                m.rounds_off += 1;
            }
            let key = c
                .actual
                .map_or_else(|| "never".to_owned(), |r| r.to_string());
            *m.rounds.entry(key).or_default() += 1;
        }
        self.ground_truth.add(t);
    }

    /// A fixture whose trials were all added.
    fn fixture(&mut self, f: &FixtureTrials) {
        self.repeat.add(f);
    }

    fn finish(self) -> Metrics {
        let mut m = self.m;
        m.fixtures = self.repeat.fixtures;
        m.repeat = self.repeat.finish();
        m.ground_truth = self.ground_truth.finish();
        let omission = m.count(Outcome::Detected)
            + m.count(Outcome::WrongReason)
            + m.count(Outcome::FalsePass);
        let golden = m.count(Outcome::Passed) + m.count(Outcome::FalseAlarm);
        if omission > 0 {
            m.false_pass_rate = Some(Rate::new(m.count(Outcome::FalsePass), omission));
            m.recall = Some(Rate::new(m.count(Outcome::Detected), omission));
        }
        if golden > 0 {
            m.false_alarm_rate = Some(Rate::new(m.count(Outcome::FalseAlarm), golden));
        }
        m.errors = m.count(Outcome::Error) + m.count(Outcome::Timeout);
        m
    }
}

/// The headline rates' names as every table shows them, in order (`Metrics::headline`; the
/// matrix's `Headline` holds the same eight).
pub const HEADLINE_RATES: [&str; 8] = [
    "false-pass rate",
    "recall",
    "false-alarm rate",
    "localization",
    "typing",
    "finding precision",
    "requirement recall",
    "obligation recall",
];

impl Metrics {
    pub fn count(&self, outcome: Outcome) -> u64 {
        self.outcomes.get(&outcome).copied().unwrap_or(0)
    }

    /// The headline rates, in the order of [`HEADLINE_RATES`].
    pub fn headline(&self) -> [Option<Rate>; 8] {
        let g = &self.ground_truth;
        [
            self.false_pass_rate,
            self.recall,
            self.false_alarm_rate,
            g.localization,
            g.typing,
            g.finding_precision,
            g.requirement_recall,
            g.obligation_recall,
        ]
    }

    /// The metrics of `trials`, those of one fixture together.
    pub fn of<T: Borrow<TrialRecord>>(trials: impl IntoIterator<Item = T>) -> Metrics {
        let (mut tally, mut fixtures) = (Tally::default(), PerFixture::default());
        for t in trials {
            if let Some((f, _)) = fixtures.add(t.borrow()) {
                tally.fixture(&f);
            }
            tally.add(t.borrow());
        }
        if let Some((f, _)) = fixtures.close() {
            tally.fixture(&f);
        }
        tally.finish()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MetricsReport {
    pub overall: Metrics,
    pub per_category: BTreeMap<String, Metrics>,
    /// Omission trials by the taxonomy kind planted (goldens have none).
    #[serde(default)]
    pub per_kind: BTreeMap<String, Metrics>,
    /// Omission trials by their fixture's tier (`ledger`, `semantic`). Goldens belong to no
    /// tier: their false alarms are counted once, overall and in their category.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub per_tier: BTreeMap<String, Metrics>,
    /// Semantic omission trials by their signal (`loud`: the golden's own test suite fails on
    /// the fixture; `silent`: it stays green).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub per_signal: BTreeMap<String, Metrics>,
    /// Runs with generated mutants: the mutation score (docs/MUTATION.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutation: Option<crate::score::mutation::MutationScore>,
}

impl MetricsReport {
    /// Every figure of a run in one pass over its trials (those of one fixture together),
    /// holding the fixture being read and never the trials (a run's are read back from its spool
    /// one by one).
    pub fn of<T: Borrow<TrialRecord>>(trials: impl IntoIterator<Item = T>) -> MetricsReport {
        Self::with_fixtures(trials, false).0
    }

    /// [`MetricsReport::of`], and, when `keep`, the per-fixture summaries it was computed with
    /// (a run's `fixture_trials`), from the same pass; an empty list otherwise.
    pub fn with_fixtures<T: Borrow<TrialRecord>>(
        trials: impl IntoIterator<Item = T>,
        keep: bool,
    ) -> (MetricsReport, Vec<FixtureTrials>) {
        let (mut overall, mut groups) = (Tally::default(), Groups::default());
        let mut fixtures = PerFixture::default();
        let mut kept = Vec::new();
        let mut mutation = crate::score::mutation::Tally::default();
        // A fixture whose trials were all added: counted overall and in each of its groups.
        let mut close =
            |(f, planted): (FixtureTrials, Planted), overall: &mut Tally, groups: &mut Groups| {
                overall.fixture(&f);
                groups.fixture(&f, planted);
                if keep {
                    kept.push(f);
                }
            };
        for t in trials {
            let t = t.borrow();
            if let Some(closed) = fixtures.add(t) {
                close(closed, &mut overall, &mut groups);
            }
            overall.add(t);
            groups.add(t);
            mutation.add(t);
        }
        if let Some(closed) = fixtures.close() {
            close(closed, &mut overall, &mut groups);
        }
        let finish = |groups: BTreeMap<&'static str, Tally>| {
            groups
                .into_iter()
                .map(|(name, tally)| (name.to_owned(), tally.finish()))
                .collect()
        };
        let report = MetricsReport {
            overall: overall.finish(),
            per_category: groups
                .per_category
                .into_iter()
                .map(|(category, tally)| (category, tally.finish()))
                .collect(),
            per_kind: finish(groups.per_kind),
            per_tier: finish(groups.per_tier),
            per_signal: finish(groups.per_signal),
            mutation: mutation.finish(),
        };
        (report, kept)
    }
}

/// The groups a run's trials are counted in beside the whole run, one trial at a time: every
/// trial in its category; an omission trial in its kind, its tier, and (semantic ones) its
/// signal. Groups are keyed by the stable ids their tables show.
#[derive(Debug, Default)]
struct Groups {
    per_category: BTreeMap<String, Tally>,
    per_kind: BTreeMap<&'static str, Tally>,
    per_tier: BTreeMap<&'static str, Tally>,
    per_signal: BTreeMap<&'static str, Tally>,
}

impl Groups {
    /// The keys of the groups other than its category `planted` puts a trial or fixture in.
    fn keys(golden: bool, planted: Planted) -> [(Option<&'static str>, Group); 3] {
        let omission = !golden;
        [
            (planted.kind.map(Kind::as_str), Group::Kind),
            (omission.then(|| planted.tier.as_str()), Group::Tier),
            (
                planted
                    .signal
                    .filter(|_| omission && planted.tier == Tier::Semantic)
                    .map(Signal::as_str),
                Group::Signal,
            ),
        ]
    }

    fn group(&mut self, group: Group) -> &mut BTreeMap<&'static str, Tally> {
        match group {
            Group::Kind => &mut self.per_kind,
            Group::Tier => &mut self.per_tier,
            Group::Signal => &mut self.per_signal,
        }
    }

    fn add(&mut self, t: &TrialRecord) {
        match self.per_category.get_mut(&t.category) {
            Some(tally) => tally.add(t),
            None => self
                .per_category
                .entry(t.category.clone())
                .or_default()
                .add(t),
        }
        for (key, group) in Self::keys(t.golden, Planted::of(t)) {
            if let Some(key) = key {
                self.group(group).entry(key).or_default().add(t);
            }
        }
    }

    /// A fixture whose trials were all added.
    fn fixture(&mut self, f: &FixtureTrials, planted: Planted) {
        if let Some(tally) = self.per_category.get_mut(&f.category) {
            tally.fixture(f);
        }
        for (key, group) in Self::keys(f.golden, planted) {
            if let Some(tally) = key.and_then(|key| self.group(group).get_mut(key)) {
                tally.fixture(f);
            }
        }
    }
}

/// The groups of [`Groups`] other than the category.
#[derive(Debug, Clone, Copy)]
enum Group {
    Kind,
    Tier,
    Signal,
}

/// One threshold judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ThresholdResult {
    pub name: String,
    /// The measured figure, as shown (`0/48`, `1.000`); `n/a` when nothing was measured.
    pub figure: String,
    /// The bar, as shown (`<= 0`, `>= 1.000`).
    pub bar: String,
    pub met: bool,
    /// The exit code this threshold gives when broken.
    pub exit_code: i32,
}

/// Judges `thresholds` against the overall metrics.
pub fn judge(m: &Metrics, thresholds: &Thresholds) -> Vec<ThresholdResult> {
    let rate = |r: &Option<Rate>| r.and_then(|r| r.value);
    let show = |r: &Option<Rate>| {
        r.map_or("n/a (none measured)".to_owned(), |r| {
            format!(
                "{:.3} ({}/{})",
                r.value.unwrap_or(0.0),
                r.numerator,
                r.denominator
            )
        })
    };
    vec![
        ThresholdResult {
            name: "false-pass rate".into(),
            figure: show(&m.false_pass_rate),
            bar: format!("<= {:.3}", thresholds.max_false_pass_rate),
            met: rate(&m.false_pass_rate).is_none_or(|v| v <= thresholds.max_false_pass_rate),
            exit_code: exit_code::THRESHOLDS,
        },
        ThresholdResult {
            name: "recall".into(),
            figure: show(&m.recall),
            bar: format!(">= {:.3}", thresholds.min_recall),
            met: rate(&m.recall).is_none_or(|v| v >= thresholds.min_recall),
            exit_code: exit_code::THRESHOLDS,
        },
        ThresholdResult {
            name: "false alarms".into(),
            figure: m.count(Outcome::FalseAlarm).to_string(),
            bar: format!("<= {}", thresholds.max_false_alarms),
            met: m.count(Outcome::FalseAlarm) <= thresholds.max_false_alarms,
            exit_code: exit_code::GOLDEN_FAILED,
        },
        ThresholdResult {
            name: "errors and timeouts".into(),
            figure: m.errors.to_string(),
            bar: format!("<= {}", thresholds.max_errors),
            met: m.errors <= thresholds.max_errors,
            exit_code: exit_code::ERRORS,
        },
        ThresholdResult {
            name: "rounds off expectation".into(),
            figure: m.rounds_off.to_string(),
            bar: format!("<= {}", thresholds.max_rounds_off),
            met: m.rounds_off <= thresholds.max_rounds_off,
            exit_code: exit_code::THRESHOLDS,
        },
    ]
    .into_iter()
    .chain(flaky_threshold(m, thresholds))
    .chain(ground_truth_thresholds(m, thresholds))
    .collect()
}

/// The optional verifier-neutral bars: only those the scenario sets are judged.
fn ground_truth_thresholds(m: &Metrics, thresholds: &Thresholds) -> Vec<ThresholdResult> {
    let g = &m.ground_truth;
    [
        ("localization", thresholds.min_localization, g.localization),
        (
            "finding precision",
            thresholds.min_finding_precision,
            g.finding_precision,
        ),
        (
            "requirement recall",
            thresholds.min_requirement_recall,
            g.requirement_recall,
        ),
        (
            "obligation recall",
            thresholds.min_obligation_recall,
            g.obligation_recall,
        ),
    ]
    .into_iter()
    .filter_map(|(name, bar, rate)| {
        let bar = bar?;
        Some(ThresholdResult {
            name: name.into(),
            figure: rate.map_or("n/a (none measured)".to_owned(), |r| {
                format!(
                    "{:.3} ({}/{})",
                    r.value.unwrap_or(0.0),
                    r.numerator,
                    r.denominator
                )
            }),
            bar: format!(">= {bar:.3}"),
            met: rate.and_then(|r| r.value).is_none_or(|v| v >= bar),
            exit_code: exit_code::THRESHOLDS,
        })
    })
    .collect()
}

/// Judges the optional per-category recall bars (`min_category_recall`): one result per category
/// that has a bar, by name or through `"*"`. A category without omission trials in this run is
/// not measured, and says so.
pub fn judge_categories(report: &MetricsReport, thresholds: &Thresholds) -> Vec<ThresholdResult> {
    let bars = &thresholds.min_category_recall;
    let categories: std::collections::BTreeSet<&String> = report
        .per_category
        .keys()
        .chain(bars.keys().filter(|k| k.as_str() != "*"))
        .collect();
    categories
        .into_iter()
        .filter_map(|category| {
            let bar = *bars.get(category).or_else(|| bars.get("*"))?;
            let recall = report.per_category.get(category).and_then(|m| m.recall);
            // `"*"` covers the categories that have omission trials (not the goldens'); a category
            // named explicitly is always shown, measured or not.
            if recall.is_none() && !bars.contains_key(category) {
                return None;
            }
            let figure = recall.map_or("n/a (none measured)".to_owned(), |r| {
                format!(
                    "{:.3} ({}/{})",
                    r.value.unwrap_or(0.0),
                    r.numerator,
                    r.denominator
                )
            });
            Some(ThresholdResult {
                name: format!("recall of {category}"),
                figure,
                bar: format!(">= {bar:.3}"),
                met: recall.and_then(|r| r.value).is_none_or(|v| v >= bar),
                exit_code: exit_code::THRESHOLDS,
            })
        })
        .collect()
}

/// Fixtures good in some trials, not all; judged only when fixtures ran more than once (with one
/// trial each nothing can be flaky).
fn flaky_threshold(m: &Metrics, thresholds: &Thresholds) -> Option<ThresholdResult> {
    let flaky = m.repeat.as_ref()?.flaky;
    Some(ThresholdResult {
        name: "flaky fixtures".into(),
        figure: flaky.to_string(),
        bar: format!("<= {}", thresholds.max_flaky),
        met: flaky <= thresholds.max_flaky,
        exit_code: exit_code::THRESHOLDS,
    })
}

/// The exit code of a run: the broken threshold of highest precedence (see `exit_code.rs`).
pub fn exit_code_of(results: &[ThresholdResult]) -> i32 {
    let broken: Vec<i32> = results
        .iter()
        .filter(|t| !t.met)
        .map(|t| t.exit_code)
        .collect();
    [
        exit_code::GOLDEN_FAILED,
        exit_code::ERRORS,
        exit_code::THRESHOLDS,
    ]
    .into_iter()
    .find(|c| broken.contains(c))
    .unwrap_or(exit_code::SUCCESS)
}

#[cfg(test)]
mod tests;
