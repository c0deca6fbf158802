//! Comparing two runs (`gatebench compare BASE NEW`): which fixtures newly pass falsely, are newly
//! missed, newly alarm or were fixed; metric deltas with intervals; convergence and cost deltas.
//! The ratchet (`ratchet.rs`) judges a run with the same fixture comparison.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use serde::{Deserialize, Serialize};

use schemars::JsonSchema;

use crate::cost::{CostTotal, Sum};
use crate::metrics::{Metrics, Rate};
use crate::outcome::Outcome;
use crate::results::{RunResults, TrialRecord};

/// How one fixture's outcomes changed between two runs. A fixture's outcomes are those of all its
/// trials; "good" means every trial was `detected` (omission) or `passed` (golden).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeKind {
    /// A trial passes falsely now; none did before.
    NewFalsePass,
    /// A golden fails now (false alarm); none of its trials did before.
    NewlyAlarmed,
    /// An omission fixture detected in every trial before is not now (wrong reason, error, timeout).
    NewlyMissed,
    /// A golden that passed in every trial before now errors or times out.
    NewlyErroring,
    /// Not good before, good now.
    Fixed,
    /// Outcomes differ, but neither a regression nor a fix (e.g. wrong-reason to error).
    Changed,
    /// In the new run only.
    Added,
    /// In the base run only (not run, or no longer in the corpus).
    Removed,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::NewFalsePass => "newly passes falsely",
            ChangeKind::NewlyAlarmed => "newly alarmed",
            ChangeKind::NewlyMissed => "newly missed",
            ChangeKind::NewlyErroring => "newly erroring",
            ChangeKind::Fixed => "fixed",
            ChangeKind::Changed => "changed",
            ChangeKind::Added => "added",
            ChangeKind::Removed => "not in the new run",
        }
    }

    /// Whether the change makes the gate worse on a fixture it handled before.
    pub fn is_regression(self) -> bool {
        matches!(
            self,
            ChangeKind::NewFalsePass
                | ChangeKind::NewlyAlarmed
                | ChangeKind::NewlyMissed
                | ChangeKind::NewlyErroring
        )
    }
}

/// One fixture whose outcomes differ between the runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FixtureChange {
    pub fixture: String,
    pub category: String,
    pub kind: ChangeKind,
    /// The base run's outcomes (`detected`, `detected x2, false-pass`), `-` when absent.
    pub base: String,
    /// The new run's outcomes, `-` when absent.
    pub new: String,
}

struct FixtureOutcomes {
    category: String,
    golden: bool,
    outcomes: Vec<Outcome>,
}

fn by_fixture(trials: &[TrialRecord]) -> BTreeMap<&str, FixtureOutcomes> {
    let mut map: BTreeMap<&str, FixtureOutcomes> = BTreeMap::new();
    for t in trials {
        map.entry(t.fixture.as_str())
            .or_insert_with(|| FixtureOutcomes {
                category: t.category.clone(),
                golden: t.golden,
                outcomes: Vec::new(),
            })
            .outcomes
            .push(t.outcome);
    }
    map
}

/// `detected`, `detected x2, false-pass`: the outcomes of a fixture's trials, counted.
pub fn show_outcomes(outcomes: &[Outcome]) -> String {
    if outcomes.is_empty() {
        return "-".into();
    }
    let mut counts: BTreeMap<Outcome, usize> = BTreeMap::new();
    for o in outcomes {
        *counts.entry(*o).or_default() += 1;
    }
    counts
        .iter()
        .map(|(o, n)| {
            if *n == 1 {
                o.as_str().to_owned()
            } else {
                format!("{} x{n}", o.as_str())
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn classify(base: &FixtureOutcomes, new: &FixtureOutcomes) -> Option<ChangeKind> {
    let has = |f: &FixtureOutcomes, o: Outcome| f.outcomes.contains(&o);
    let all = |f: &FixtureOutcomes, o: Outcome| f.outcomes.iter().all(|x| *x == o);
    let good = if new.golden {
        Outcome::Passed
    } else {
        Outcome::Detected
    };
    if has(new, Outcome::FalsePass) && !has(base, Outcome::FalsePass) {
        return Some(ChangeKind::NewFalsePass);
    }
    if has(new, Outcome::FalseAlarm) && !has(base, Outcome::FalseAlarm) {
        return Some(ChangeKind::NewlyAlarmed);
    }
    if all(base, good) && !all(new, good) {
        return Some(if new.golden {
            ChangeKind::NewlyErroring
        } else {
            ChangeKind::NewlyMissed
        });
    }
    if !all(base, good) && all(new, good) {
        return Some(ChangeKind::Fixed);
    }
    let mut b = base.outcomes.clone();
    let mut n = new.outcomes.clone();
    b.sort();
    n.sort();
    (b != n).then_some(ChangeKind::Changed)
}

/// Every fixture whose outcomes differ between `base` and `new`, sorted by kind, then id.
pub fn fixture_changes(base: &[TrialRecord], new: &[TrialRecord]) -> Vec<FixtureChange> {
    let base_map = by_fixture(base);
    let new_map = by_fixture(new);
    let ids: BTreeSet<&str> = base_map.keys().chain(new_map.keys()).copied().collect();
    let mut changes = Vec::new();
    for id in ids {
        let (b, n) = (base_map.get(id), new_map.get(id));
        let kind = match (b, n) {
            (Some(b), Some(n)) => classify(b, n),
            (None, Some(_)) => Some(ChangeKind::Added),
            (Some(_), None) => Some(ChangeKind::Removed),
            (None, None) => None,
        };
        if let Some(kind) = kind {
            let category = n.or(b).map(|f| f.category.clone()).unwrap_or_default();
            changes.push(FixtureChange {
                fixture: id.to_owned(),
                category,
                kind,
                base: b.map_or("-".into(), |f| show_outcomes(&f.outcomes)),
                new: n.map_or("-".into(), |f| show_outcomes(&f.outcomes)),
            });
        }
    }
    changes.sort_by(|a, b| (a.kind, &a.fixture).cmp(&(b.kind, &b.fixture)));
    changes
}

/// The 95% interval of the difference `new - base` of two independent proportions: Newcombe's
/// hybrid score interval (method 10 of Newcombe 1998), built from each rate's Wilson interval.
pub fn difference_interval(base: &Rate, new: &Rate) -> Option<(f64, f64, f64)> {
    let (p1, p2) = (base.value?, new.value?);
    let d = p2 - p1;
    let low = d - ((p2 - new.low).powi(2) + (base.high - p1).powi(2)).sqrt();
    let high = d + ((new.high - p2).powi(2) + (p1 - base.low).powi(2)).sqrt();
    Some((d, low.max(-1.0), high.min(1.0)))
}

/// One rate in both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct RateDelta {
    pub name: String,
    pub base: Option<Rate>,
    pub new: Option<Rate>,
}

impl RateDelta {
    fn difference(&self) -> Option<(f64, f64, f64)> {
        difference_interval(self.base.as_ref()?, self.new.as_ref()?)
    }
}

/// Convergence of a run: trials by the round they first passed, and the mean of that round.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConvergenceSummary {
    /// Trials by first-PASS round (`"never"` for none), among trials that state an expectation.
    pub rounds: BTreeMap<String, u64>,
    pub rounds_off: u64,
    /// Mean first-PASS round over trials that converged.
    pub mean_round: Option<f64>,
    /// Pipeline rounds run in all, the work convergence costs.
    pub rounds_run: u64,
}

impl ConvergenceSummary {
    pub fn of(results: &RunResults) -> ConvergenceSummary {
        let m = &results.metrics.overall;
        let converged: Vec<u32> = results
            .trials
            .iter()
            .filter_map(|t| t.convergence.as_ref().and_then(|c| c.actual))
            .collect();
        ConvergenceSummary {
            rounds: m.rounds.clone(),
            rounds_off: m.rounds_off,
            mean_round: (!converged.is_empty()).then(|| {
                converged.iter().map(|r| f64::from(*r)).sum::<f64>() / converged.len() as f64
            }),
            rounds_run: results.trials.iter().map(|t| t.rounds.len() as u64).sum(),
        }
    }
}

/// Two runs compared.
#[derive(Debug, Clone)]
pub struct Comparison {
    pub base_label: String,
    pub new_label: String,
    pub base_run: String,
    pub new_run: String,
    /// Scenario and pipeline of each run, when they differ (`None` when the same).
    pub setup_differs: Option<(String, String)>,
    pub changes: Vec<FixtureChange>,
    pub overall: Vec<RateDelta>,
    /// Per category, only the rates that differ.
    pub per_category: Vec<(String, Vec<RateDelta>)>,
    pub counts: Vec<(String, u64, u64)>,
    pub convergence: (ConvergenceSummary, ConvergenceSummary),
    /// Cost of every round and fixer run (`cost.rs`); unknown where not reported.
    pub cost: (CostTotal, CostTotal),
    /// Run wall time and the sum of trial times, in ms.
    pub time: ((u64, u64), (u64, u64)),
}

impl Comparison {
    pub fn regressions(&self) -> impl Iterator<Item = &FixtureChange> {
        self.changes.iter().filter(|c| c.kind.is_regression())
    }
}

fn rates(m: &Metrics) -> [(&'static str, Option<Rate>); 3] {
    [
        ("false-pass rate", m.false_pass_rate),
        ("recall", m.recall),
        ("false-alarm rate", m.false_alarm_rate),
    ]
}

fn rate_deltas(base: Option<&Metrics>, new: Option<&Metrics>) -> Vec<RateDelta> {
    let empty = Metrics::default();
    let (b, n) = (rates(base.unwrap_or(&empty)), rates(new.unwrap_or(&empty)));
    b.into_iter()
        .zip(n)
        .map(|((name, base), (_, new))| RateDelta {
            name: name.into(),
            base,
            new,
        })
        .collect()
}

/// Compares `new` against `base`; the labels name them in the output (their paths).
pub fn compare(
    base: &RunResults,
    new: &RunResults,
    base_label: &str,
    new_label: &str,
) -> Comparison {
    let setup = |r: &RunResults| format!("scenario {}, pipeline {}", r.scenario.name, r.pipeline);
    let (bm, nm) = (&base.metrics, &new.metrics);
    let categories: BTreeSet<&String> = bm
        .per_category
        .keys()
        .chain(nm.per_category.keys())
        .collect();
    let per_category = categories
        .into_iter()
        .filter_map(|c| {
            let deltas: Vec<RateDelta> =
                rate_deltas(bm.per_category.get(c), nm.per_category.get(c))
                    .into_iter()
                    .filter(|d| d.base.and_then(|r| r.value) != d.new.and_then(|r| r.value))
                    .collect();
            (!deltas.is_empty()).then(|| (c.clone(), deltas))
        })
        .collect();
    let (bo, no) = (&bm.overall, &nm.overall);
    Comparison {
        base_label: base_label.to_owned(),
        new_label: new_label.to_owned(),
        base_run: base.run_id.clone(),
        new_run: new.run_id.clone(),
        setup_differs: (setup(base) != setup(new)).then(|| (setup(base), setup(new))),
        changes: fixture_changes(&base.trials, &new.trials),
        overall: rate_deltas(Some(bo), Some(no)),
        per_category,
        counts: vec![
            ("fixtures".into(), bo.fixtures, no.fixtures),
            ("trials".into(), bo.trials, no.trials),
            (
                "false passes".into(),
                bo.count(Outcome::FalsePass),
                no.count(Outcome::FalsePass),
            ),
            (
                "false alarms".into(),
                bo.count(Outcome::FalseAlarm),
                no.count(Outcome::FalseAlarm),
            ),
            (
                "wrong reason".into(),
                bo.count(Outcome::WrongReason),
                no.count(Outcome::WrongReason),
            ),
            ("errors and timeouts".into(), bo.errors, no.errors),
            (
                "rounds off expectation".into(),
                bo.rounds_off,
                no.rounds_off,
            ),
        ],
        convergence: (ConvergenceSummary::of(base), ConvergenceSummary::of(new)),
        cost: (bo.cost.clone(), no.cost.clone()),
        time: (
            (base.duration_ms, bo.total_ms),
            (new.duration_ms, no.total_ms),
        ),
    }
}

fn show_rate(r: &Option<Rate>) -> String {
    match r {
        Some(Rate {
            value: Some(v),
            low,
            high,
            numerator,
            denominator,
        }) => format!("{v:.3} [{low:.2}, {high:.2}] ({numerator}/{denominator})"),
        _ => "n/a".into(),
    }
}

fn show_difference(d: &RateDelta) -> String {
    match d.difference() {
        Some((v, low, high)) => format!("{v:+.3} [{low:+.2}, {high:+.2}]"),
        None => "n/a".into(),
    }
}

fn signed(base: i128, new: i128) -> String {
    format!("{:+}", new - base)
}

fn show_sum<T: std::fmt::Display>(s: &Sum<T>, show: impl Fn(&T) -> String) -> String {
    if s.known == 0 {
        "unknown".into()
    } else if s.unknown > 0 {
        format!(
            "at least {} ({} of {} runs reported it)",
            show(&s.total),
            s.known,
            s.known + s.unknown
        )
    } else {
        show(&s.total)
    }
}

/// The delta of a summed quantity: unknown unless both runs reported it everywhere.
fn sum_delta(base: &Sum<f64>, new: &Sum<f64>, show: impl Fn(f64) -> String) -> String {
    if base.known == 0 || new.known == 0 || base.unknown > 0 || new.unknown > 0 {
        "unknown".into()
    } else {
        show(new.total - base.total)
    }
}

fn as_f64(s: &Sum<u64>) -> Sum<f64> {
    Sum {
        total: s.total as f64,
        known: s.known,
        unknown: s.unknown,
    }
}

fn show_dist(c: &ConvergenceSummary) -> String {
    if c.rounds.is_empty() {
        return "-".into();
    }
    c.rounds
        .iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn show_mean(m: Option<f64>) -> String {
    m.map_or("n/a".into(), |v| format!("{v:.2}"))
}

/// The rows every format shows, in order: (section, rows of [what, base, new, delta]).
fn tables(c: &Comparison) -> Vec<(String, Vec<[String; 4]>)> {
    let mut out = Vec::new();
    let rate_rows = |deltas: &[RateDelta]| {
        deltas
            .iter()
            .map(|d| {
                [
                    d.name.clone(),
                    show_rate(&d.base),
                    show_rate(&d.new),
                    show_difference(d),
                ]
            })
            .collect::<Vec<_>>()
    };
    out.push(("Metrics (95% intervals)".to_owned(), rate_rows(&c.overall)));
    for (category, deltas) in &c.per_category {
        out.push((format!("Category {category}"), rate_rows(deltas)));
    }
    out.push((
        "Counts".to_owned(),
        c.counts
            .iter()
            .map(|(name, b, n)| {
                [
                    name.clone(),
                    b.to_string(),
                    n.to_string(),
                    signed(i128::from(*b), i128::from(*n)),
                ]
            })
            .collect(),
    ));
    let (cb, cn) = &c.convergence;
    let mean_delta = match (cb.mean_round, cn.mean_round) {
        (Some(b), Some(n)) => format!("{:+.2}", n - b),
        _ => "n/a".into(),
    };
    out.push((
        "Convergence".to_owned(),
        vec![
            [
                "first PASS at round".into(),
                show_dist(cb),
                show_dist(cn),
                String::new(),
            ],
            [
                "mean first-PASS round".into(),
                show_mean(cb.mean_round),
                show_mean(cn.mean_round),
                mean_delta,
            ],
            [
                "pipeline rounds run".into(),
                cb.rounds_run.to_string(),
                cn.rounds_run.to_string(),
                signed(i128::from(cb.rounds_run), i128::from(cn.rounds_run)),
            ],
        ],
    ));
    let (kb, kn) = &c.cost;
    let int = |v: &u64| v.to_string();
    let usd = |v: &f64| format!("${v:.4}");
    let mut cost_rows: Vec<[String; 4]> = vec![
        [
            "tokens in".into(),
            show_sum(&kb.tokens_in, int),
            show_sum(&kn.tokens_in, int),
            sum_delta(&as_f64(&kb.tokens_in), &as_f64(&kn.tokens_in), |d| {
                format!("{d:+}")
            }),
        ],
        [
            "tokens out".into(),
            show_sum(&kb.tokens_out, int),
            show_sum(&kn.tokens_out, int),
            sum_delta(&as_f64(&kb.tokens_out), &as_f64(&kn.tokens_out), |d| {
                format!("{d:+}")
            }),
        ],
        [
            "money".into(),
            show_sum(&kb.usd, usd),
            show_sum(&kn.usd, usd),
            sum_delta(&kb.usd, &kn.usd, |d| format!("{d:+.4}")),
        ],
    ];
    let ((wb, tb), (wn, tn)) = c.time;
    let secs = |ms: u64| format!("{:.2}s", ms as f64 / 1000.0);
    let secs_delta = |b: u64, n: u64| format!("{:+.2}s", (n as f64 - b as f64) / 1000.0);
    cost_rows.push([
        "run wall time".into(),
        secs(wb),
        secs(wn),
        secs_delta(wb, wn),
    ]);
    cost_rows.push([
        "trial time, summed".into(),
        secs(tb),
        secs(tn),
        secs_delta(tb, tn),
    ]);
    out.push(("Cost".to_owned(), cost_rows));
    out
}

const CHANGE_ORDER: [ChangeKind; 8] = [
    ChangeKind::NewFalsePass,
    ChangeKind::NewlyAlarmed,
    ChangeKind::NewlyMissed,
    ChangeKind::NewlyErroring,
    ChangeKind::Fixed,
    ChangeKind::Changed,
    ChangeKind::Added,
    ChangeKind::Removed,
];

fn verdict_line(c: &Comparison) -> String {
    let n = c.regressions().count();
    if n == 0 {
        "no fixture regressed".to_owned()
    } else {
        format!("{n} fixture(s) regressed")
    }
}

/// The comparison for a terminal.
pub fn text(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "base: {} ({})", c.base_label, c.base_run);
    let _ = writeln!(out, "new:  {} ({})", c.new_label, c.new_run);
    if let Some((b, n)) = &c.setup_differs {
        let _ = writeln!(out, "note: the runs differ: base {b}; new {n}");
    }
    let _ = writeln!(out, "\n{}", verdict_line(c).to_uppercase());
    for kind in CHANGE_ORDER {
        let list: Vec<&FixtureChange> = c.changes.iter().filter(|x| x.kind == kind).collect();
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{} ({})", kind.as_str().to_uppercase(), list.len());
        for x in list {
            let _ = writeln!(
                out,
                "  {} [{}]: {} -> {}",
                x.fixture, x.category, x.base, x.new
            );
        }
    }
    for (title, rows) in tables(c) {
        let _ = writeln!(out, "\n{title}");
        let head = ["", "base", "new", "delta"].map(str::to_owned);
        let all: Vec<&[String; 4]> = std::iter::once(&head).chain(rows.iter()).collect();
        let widths: Vec<usize> = (0..4)
            .map(|i| all.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
            .collect();
        for r in all {
            let line = format!(
                "  {:<w0$}  {:<w1$}  {:<w2$}  {}",
                r[0],
                r[1],
                r[2],
                r[3],
                w0 = widths[0],
                w1 = widths[1],
                w2 = widths[2]
            );
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    out
}

/// The comparison as Markdown (for a pull request comment or a step summary).
pub fn markdown(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# gatebench compare: {}\n", verdict_line(c));
    let _ = writeln!(
        out,
        "Base `{}` ({}), new `{}` ({}).\n",
        c.base_label, c.base_run, c.new_label, c.new_run
    );
    if let Some((b, n)) = &c.setup_differs {
        let _ = writeln!(out, "> The runs differ: base {b}; new {n}.\n");
    }
    if c.changes.is_empty() {
        let _ = writeln!(out, "No fixture changed outcome.\n");
    } else {
        let _ = writeln!(
            out,
            "## Fixtures that changed\n\n| change | fixture | category | base | new |\n|---|---|---|---|---|"
        );
        for kind in CHANGE_ORDER {
            for x in c.changes.iter().filter(|x| x.kind == kind) {
                let mark = if kind.is_regression() { "**" } else { "" };
                let _ = writeln!(
                    out,
                    "| {mark}{}{mark} | `{}` | {} | {} | {} |",
                    kind.as_str(),
                    x.fixture,
                    x.category,
                    x.base,
                    x.new
                );
            }
        }
        out.push('\n');
    }
    for (title, rows) in tables(c) {
        let _ = writeln!(
            out,
            "## {title}\n\n|  | base | new | delta |\n|---|---|---|---|"
        );
        for r in rows {
            let _ = writeln!(out, "| {} | {} | {} | {} |", r[0], r[1], r[2], r[3]);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::wilson;

    fn rate(k: u64, n: u64) -> Rate {
        Rate::new(k, n)
    }

    #[test]
    fn the_difference_interval_matches_newcombe_1998() {
        // Newcombe (1998), Statistics in Medicine 17, table II, example (a): 56/70 vs 48/80,
        // difference 0.2000, method 10 interval [0.0524, 0.3339].
        let (d, low, high) = difference_interval(&rate(48, 80), &rate(56, 70)).unwrap();
        assert!((d - 0.2).abs() < 1e-9, "{d}");
        assert!((low - 0.0524).abs() < 1e-4, "{low}");
        assert!((high - 0.3339).abs() < 1e-4, "{high}");
        assert_eq!(wilson(0, 0), (0.0, 1.0));
        assert!(difference_interval(&rate(0, 0), &rate(1, 2)).is_none());
    }

    fn trial(id: &str, golden: bool, outcome: Outcome) -> TrialRecord {
        let mut t = TrialRecord::named(id, "c", golden, 0);
        t.outcome = outcome;
        t
    }

    #[test]
    fn each_kind_of_change_is_named() {
        use Outcome::*;
        let base = vec![
            trial("a", false, Detected),
            trial("b", false, Detected),
            trial("c", true, Passed),
            trial("d", false, WrongReason),
            trial("e", true, Passed),
            trial("f", false, WrongReason),
            trial("g", false, Detected),
            trial("h", false, Detected),
        ];
        let new = vec![
            trial("a", false, FalsePass),
            trial("b", false, WrongReason),
            trial("c", true, FalseAlarm),
            trial("d", false, Detected),
            trial("e", true, Timeout),
            trial("f", false, Error),
            trial("g", false, Detected),
            trial("i", false, Detected),
        ];
        let got: Vec<(String, ChangeKind)> = fixture_changes(&base, &new)
            .into_iter()
            .map(|c| (c.fixture, c.kind))
            .collect();
        let want = [
            ("a", ChangeKind::NewFalsePass),
            ("c", ChangeKind::NewlyAlarmed),
            ("b", ChangeKind::NewlyMissed),
            ("e", ChangeKind::NewlyErroring),
            ("d", ChangeKind::Fixed),
            ("f", ChangeKind::Changed),
            ("i", ChangeKind::Added),
            ("h", ChangeKind::Removed),
        ]
        .map(|(f, k)| (f.to_owned(), k));
        assert_eq!(got, want);
        assert_eq!(
            got.iter().filter(|(_, k)| k.is_regression()).count(),
            4,
            "{got:?}"
        );
    }

    #[test]
    fn a_false_pass_in_one_of_several_trials_is_new_when_none_was_before() {
        use Outcome::*;
        let base = vec![trial("a", false, WrongReason), trial("a", false, Detected)];
        let new = vec![trial("a", false, FalsePass), trial("a", false, Detected)];
        let changes = fixture_changes(&base, &new);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].kind, ChangeKind::NewFalsePass);
        assert_eq!(changes[0].new, "detected, false-pass");
    }
}
