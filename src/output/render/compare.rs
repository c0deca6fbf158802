//! Comparing two runs (`gatebench compare BASE NEW`): which fixtures newly pass falsely, are newly
//! missed, newly alarm or were fixed; metric deltas with intervals; convergence and cost deltas.
//! The ratchet (`ratchet.rs`) judges a run with the same fixture comparison.

use crate::output::render::escape;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use crate::output::render::table::{Cell, Table};
use crate::output::render::tiers;
use crate::output::store::results::RunResults;
use crate::score::changes::{fixture_changes, ChangeKind, FixtureChange};
use crate::score::cost::{CostTotal, Sum};
use crate::score::metrics::{Metrics, MetricsReport, HEADLINE_RATES};
use crate::score::outcome::Outcome;
use crate::score::rate::{difference_interval, Rate};

/// One rate in both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct RateDelta {
    pub name: String,
    pub base: Option<Rate>,
    pub new: Option<Rate>,
}

impl RateDelta {
    /// `new - base` with Newcombe's 95% interval; `None` unless both were measured.
    pub fn difference(&self) -> Option<(f64, f64, f64)> {
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
    /// Per taxonomy kind, only the rates that differ.
    pub per_kind: Vec<(String, Vec<RateDelta>)>,
    /// When either run has a semantic fixture: recall and false-pass rate per tier, and of the
    /// semantic tier per signal (`tiers::ROWS`), present in either run.
    pub per_tier: Vec<(String, Vec<RateDelta>)>,
    pub counts: Vec<(String, u64, u64)>,
    pub convergence: (ConvergenceSummary, ConvergenceSummary),
    /// Cost of every round and fixer run (`cost.rs`); unknown where not reported.
    pub cost: (CostTotal, CostTotal),
    /// Run wall time and the sum of trial times, in ms.
    pub time: ((u64, u64), (u64, u64)),
    /// When either run has mutants: the mutation scores and their survivors.
    pub mutation: Option<MutationComparison>,
}

/// The mutation scores of two runs (docs/MUTATION.md).
#[derive(Debug, Clone, PartialEq)]
pub struct MutationComparison {
    pub score: RateDelta,
    /// Per operator that both runs have mutants of.
    pub per_operator: Vec<RateDelta>,
    /// Mutants the new run passed and the base did not (newly surviving).
    pub new_survivors: Vec<String>,
    /// Mutants the base passed that the new run ran and did not pass.
    pub fixed: Vec<String>,
    /// Unviable mutants recorded by each run (`None`: not recorded or no mutants).
    pub unviable: (Option<u64>, Option<u64>),
}

/// The mutation comparison of two runs; `None` when neither has mutants.
pub fn mutation_comparison(base: &RunResults, new: &RunResults) -> Option<MutationComparison> {
    let (bm, nm) = (
        base.metrics.mutation.as_ref(),
        new.metrics.mutation.as_ref(),
    );
    if bm.is_none() && nm.is_none() {
        return None;
    }
    let per_operator = match (bm, nm) {
        (Some(b), Some(n)) => b
            .per_operator
            .iter()
            .filter_map(|(op, br)| {
                n.per_operator.get(op).map(|nr| RateDelta {
                    name: op.clone(),
                    base: Some(*br),
                    new: Some(*nr),
                })
            })
            .collect(),
        _ => Vec::new(),
    };
    let survivors = |m: Option<&crate::score::mutation::MutationScore>| -> BTreeSet<String> {
        m.map(|m| m.survivors.iter().cloned().collect())
            .unwrap_or_default()
    };
    let (bs, ns) = (survivors(bm), survivors(nm));
    let ran_in_new: BTreeSet<String> = new
        .trials
        .iter()
        .filter(|t| !matches!(t.outcome, Outcome::Error | Outcome::Timeout))
        .map(|t| t.fixture.clone())
        .collect();
    let unviable = |m: Option<&crate::score::mutation::MutationScore>| {
        m.and_then(|m| m.unviable.as_ref()).map(|u| u.count)
    };
    Some(MutationComparison {
        score: RateDelta {
            name: "mutation score".into(),
            base: bm.map(|m| m.score),
            new: nm.map(|m| m.score),
        },
        per_operator,
        new_survivors: ns.difference(&bs).cloned().collect(),
        fixed: bs
            .difference(&ns)
            .filter(|id| ran_in_new.contains(id.as_str()))
            .cloned()
            .collect(),
        unviable: (unviable(bm), unviable(nm)),
    })
}

impl Comparison {
    pub fn regressions(&self) -> impl Iterator<Item = &FixtureChange> {
        self.changes.iter().filter(|c| c.kind.is_regression())
    }
}

/// The rates every comparison shows, by name, in order.
pub fn rates(m: &Metrics) -> [(&'static str, Option<Rate>); 8] {
    let values = m.headline();
    std::array::from_fn(|i| (HEADLINE_RATES[i], values[i]))
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

/// Per group (category or kind) in either run, the rates that differ between them.
fn differing(
    base: &BTreeMap<String, Metrics>,
    new: &BTreeMap<String, Metrics>,
) -> Vec<(String, Vec<RateDelta>)> {
    let groups: BTreeSet<&String> = base.keys().chain(new.keys()).collect();
    groups
        .into_iter()
        .filter_map(|g| {
            let deltas: Vec<RateDelta> = rate_deltas(base.get(g), new.get(g))
                .into_iter()
                .filter(|d| d.base.and_then(|r| r.value) != d.new.and_then(|r| r.value))
                .collect();
            (!deltas.is_empty()).then(|| (g.clone(), deltas))
        })
        .collect()
}

/// Recall and false-pass rate of each tier row (`tiers::ROWS`) either run has, when either has
/// a semantic fixture; nothing otherwise.
fn tier_deltas(base: &MetricsReport, new: &MetricsReport) -> Vec<(String, Vec<RateDelta>)> {
    if !tiers::has_semantic(&base.per_tier) && !tiers::has_semantic(&new.per_tier) {
        return Vec::new();
    }
    tiers::ROWS
        .iter()
        .filter_map(|(label, source, key)| {
            let get =
                |m: &MetricsReport| source.pick(&m.per_tier, &m.per_signal).get(*key).cloned();
            let (b, n) = (get(base), get(new));
            if b.is_none() && n.is_none() {
                return None;
            }
            let delta = |name: &str, pick: fn(&Metrics) -> Option<Rate>| RateDelta {
                name: format!("{label}: {name}"),
                base: b.as_ref().and_then(pick),
                new: n.as_ref().and_then(pick),
            };
            Some((
                (*label).to_owned(),
                vec![
                    delta("recall", |m| m.recall),
                    delta("false-pass rate", |m| m.false_pass_rate),
                ],
            ))
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
    let per_category = differing(&bm.per_category, &nm.per_category);
    let per_kind = differing(&bm.per_kind, &nm.per_kind);
    let per_tier = tier_deltas(bm, nm);
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
        per_kind,
        per_tier,
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
        mutation: mutation_comparison(base, new),
    }
}

/// A rate as `0.933 [0.70, 0.99] (14/15)`, or `n/a` (also the matrix's tables).
pub fn show_rate(r: &Option<Rate>) -> String {
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

/// A difference `new - base` as `+0.100 [-0.05, +0.24]` (value and Newcombe interval), or
/// `n/a` (also the matrix's tables).
pub fn show_interval(d: Option<(f64, f64, f64)>) -> String {
    match d {
        Some((v, low, high)) => format!("{v:+.3} [{low:+.2}, {high:+.2}]"),
        None => "n/a".into(),
    }
}

fn show_difference(d: &RateDelta) -> String {
    show_interval(d.difference())
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

/// A section's table: what, base, new, delta; the first column may name a category or an
/// operator (someone else's words).
fn section<R: IntoIterator<Item = [String; 4]>>(rows: R) -> Table {
    let mut table = Table::new(["", "base", "new", "delta"]);
    for [what, base, new, delta] in rows {
        table.push([Cell::others(what), base.into(), new.into(), delta.into()]);
    }
    table
}

fn rate_rows(deltas: &[RateDelta]) -> Vec<[String; 4]> {
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
        .collect()
}

fn count_rows(c: &Comparison) -> Vec<[String; 4]> {
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
        .collect()
}

fn convergence_rows(c: &Comparison) -> Vec<[String; 4]> {
    let (cb, cn) = &c.convergence;
    let mean_delta = match (cb.mean_round, cn.mean_round) {
        (Some(b), Some(n)) => format!("{:+.2}", n - b),
        _ => "n/a".into(),
    };
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
    ]
}

fn cost_rows(c: &Comparison) -> Vec<[String; 4]> {
    let (kb, kn) = &c.cost;
    let int = |v: &u64| v.to_string();
    let usd = |v: &f64| format!("${v:.4}");
    let tokens = |name: &str, b: &Sum<u64>, n: &Sum<u64>| {
        [
            name.to_owned(),
            show_sum(b, int),
            show_sum(n, int),
            sum_delta(&as_f64(b), &as_f64(n), |d| format!("{d:+}")),
        ]
    };
    let ((wb, tb), (wn, tn)) = c.time;
    let secs = |ms: u64| format!("{:.2}s", ms as f64 / 1000.0);
    let secs_delta = |b: u64, n: u64| format!("{:+.2}s", (n as f64 - b as f64) / 1000.0);
    vec![
        tokens("tokens in", &kb.tokens_in, &kn.tokens_in),
        tokens("tokens out", &kb.tokens_out, &kn.tokens_out),
        [
            "money".into(),
            show_sum(&kb.usd, usd),
            show_sum(&kn.usd, usd),
            sum_delta(&kb.usd, &kn.usd, |d| format!("{d:+.4}")),
        ],
        [
            "run wall time".into(),
            secs(wb),
            secs(wn),
            secs_delta(wb, wn),
        ],
        [
            "trial time, summed".into(),
            secs(tb),
            secs(tn),
            secs_delta(tb, tn),
        ],
    ]
}

fn mutation_rows(m: &MutationComparison) -> Vec<[String; 4]> {
    let count = |n: Option<u64>| n.map_or("n/a".to_owned(), |n| n.to_string());
    let mut rows = rate_rows(std::slice::from_ref(&m.score));
    rows.push([
        "survivors".into(),
        String::new(),
        String::new(),
        format!("{} new, {} fixed", m.new_survivors.len(), m.fixed.len()),
    ]);
    rows.push([
        "unviable mutants".into(),
        count(m.unviable.0),
        count(m.unviable.1),
        match m.unviable {
            (Some(b), Some(n)) => signed(i128::from(b), i128::from(n)),
            _ => "n/a".into(),
        },
    ]);
    rows
}

/// The tables every format shows, in order: (section title, table).
fn tables(c: &Comparison) -> Vec<(String, Table)> {
    let mut out = vec![(
        "Metrics (95% intervals)".to_owned(),
        section(rate_rows(&c.overall)),
    )];
    for (category, deltas) in &c.per_category {
        out.push((format!("Category {category}"), section(rate_rows(deltas))));
    }
    for (kind, deltas) in &c.per_kind {
        out.push((format!("Kind {kind}"), section(rate_rows(deltas))));
    }
    if !c.per_tier.is_empty() {
        let deltas: Vec<RateDelta> = c.per_tier.iter().flat_map(|(_, d)| d.clone()).collect();
        out.push((
            "By tier (95% intervals)".to_owned(),
            section(rate_rows(&deltas)),
        ));
    }
    out.push(("Counts".to_owned(), section(count_rows(c))));
    out.push(("Convergence".to_owned(), section(convergence_rows(c))));
    out.push(("Cost".to_owned(), section(cost_rows(c))));
    if let Some(m) = &c.mutation {
        out.push((
            "Mutation score (95% intervals)".to_owned(),
            section(mutation_rows(m)),
        ));
        if !m.per_operator.is_empty() {
            out.push((
                "Mutation score per operator (both runs)".to_owned(),
                section(rate_rows(&m.per_operator)),
            ));
        }
    }
    out
}

/// The survivor lists of a comparison: (title, mutant ids), newly surviving first.
fn survivor_lists(c: &Comparison) -> Vec<(&'static str, &[String])> {
    match &c.mutation {
        Some(m) => vec![
            (
                "NEW SURVIVORS (passed in new, not in base)",
                &m.new_survivors[..],
            ),
            (
                "FIXED SURVIVORS (passed in base, caught in new)",
                &m.fixed[..],
            ),
        ],
        None => Vec::new(),
    }
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
    for (title, ids) in survivor_lists(c) {
        if ids.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{title}: {}", ids.len());
        for id in ids {
            let _ = writeln!(out, "  {id}");
        }
    }
    for (title, table) in tables(c) {
        let _ = writeln!(out, "\n{title}");
        out.push_str(&table.text("  "));
    }
    out
}

/// The comparison as Markdown (for a pull request comment or a step summary).
pub fn markdown(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# gatebench compare: {}\n", verdict_line(c));
    let _ = writeln!(
        out,
        "Base {} ({}), new {} ({}).\n",
        escape::markdown_code(&c.base_label),
        escape::markdown(&c.base_run),
        escape::markdown_code(&c.new_label),
        escape::markdown(&c.new_run)
    );
    if let Some((b, n)) = &c.setup_differs {
        let _ = writeln!(
            out,
            "> The runs differ: base {}; new {}.\n",
            escape::markdown(b),
            escape::markdown(n)
        );
    }
    if c.changes.is_empty() {
        let _ = writeln!(out, "No fixture changed outcome.\n");
    } else {
        let _ = writeln!(out, "## Fixtures that changed\n");
        let mut table = Table::new(["change", "fixture", "category", "base", "new"]);
        for kind in CHANGE_ORDER {
            for x in c.changes.iter().filter(|x| x.kind == kind) {
                let mark = if kind.is_regression() { "**" } else { "" };
                table.push([
                    format!("{mark}{}{mark}", kind.as_str()).into(),
                    escape::markdown_code(&x.fixture).into(),
                    Cell::others(x.category.as_str()),
                    Cell::others(x.base.as_str()),
                    Cell::others(x.new.as_str()),
                ]);
            }
        }
        out.push_str(&table.markdown());
        out.push('\n');
    }
    for (title, ids) in survivor_lists(c) {
        if ids.is_empty() {
            continue;
        }
        let title = title.to_lowercase();
        let _ = writeln!(
            out,
            "## {}{} ({})\n",
            title[..1].to_uppercase(),
            &title[1..],
            ids.len()
        );
        for id in ids {
            let _ = writeln!(out, "- {}", escape::markdown_code(id));
        }
        out.push('\n');
    }
    for (title, table) in tables(c) {
        let _ = writeln!(out, "## {title}\n");
        out.push_str(&table.markdown());
        out.push('\n');
    }
    out
}
