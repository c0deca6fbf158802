//! The figures by tier (issue 41): recall and false-pass rate of the ledger and the semantic
//! omissions, and of the semantic ones by signal (loud: the golden's own test suite fails on
//! them; silent: it stays green), as a table (`summary.md`, `report.html`, the terminal's one
//! line) and as the rows `compare` and a matrix show. Shown only when a run has a semantic
//! fixture: a run of ledger fixtures alone says nothing new by tier.

use std::collections::BTreeMap;

use crate::output::render::table::{Cell, Table};
use crate::score::metrics::{Metrics, MetricsReport};
use crate::score::rate::Rate;

/// The tier groups as the tables show them, in order: (label, the group's metrics in
/// `per_tier` or `per_signal`, its key there).
pub const ROWS: [(&str, Source, &str); 4] = [
    ("ledger", Source::Tier, "ledger"),
    ("semantic", Source::Tier, "semantic"),
    ("semantic, loud", Source::Signal, "loud"),
    ("semantic, silent", Source::Signal, "silent"),
];

/// Which of a run's group maps a tier row reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `per_tier`.
    Tier,
    /// `per_signal`.
    Signal,
}

impl Source {
    /// The map it names, of `tiers` and `signals`.
    pub fn pick<'a, T>(
        self,
        tiers: &'a BTreeMap<String, T>,
        signals: &'a BTreeMap<String, T>,
    ) -> &'a BTreeMap<String, T> {
        match self {
            Source::Tier => tiers,
            Source::Signal => signals,
        }
    }
}

/// Whether the groups hold a semantic tier: only then are tiers shown.
pub fn has_semantic<T>(per_tier: &BTreeMap<String, T>) -> bool {
    per_tier.contains_key("semantic")
}

/// The tier rows present in `metrics`, in [`ROWS`]'s order, with their metrics.
pub fn rows(metrics: &MetricsReport) -> Vec<(&'static str, &Metrics)> {
    ROWS.iter()
        .filter_map(|(label, source, key)| {
            let groups = source.pick(&metrics.per_tier, &metrics.per_signal);
            groups.get(*key).map(|m| (*label, m))
        })
        .collect()
}

/// A rate as the summaries show it, `0.933 [0.70, 0.99]`, or `n/a`.
fn interval(r: &Option<Rate>) -> String {
    match r {
        Some(Rate {
            value: Some(v),
            low,
            high,
            ..
        }) => format!("{v:.3} [{low:.2}, {high:.2}]"),
        _ => "n/a".into(),
    }
}

/// A rate in short, `0.933 (14/15)`, or `n/a`.
fn short(r: &Option<Rate>) -> String {
    match r {
        Some(Rate {
            value: Some(v),
            numerator,
            denominator,
            ..
        }) => format!("{v:.3} ({numerator}/{denominator})"),
        _ => "n/a".into(),
    }
}

/// The "By tier" table: tier, omission fixtures, recall and false-pass rate with their Wilson
/// intervals; the loud and silent rows under the semantic one. `None` without a semantic fixture.
pub fn table(metrics: &MetricsReport) -> Option<Table> {
    if !has_semantic(&metrics.per_tier) {
        return None;
    }
    let mut table = Table::new([
        "tier",
        "fixtures",
        "recall [95% CI]",
        "false-pass rate [95% CI]",
    ])
    .figures();
    for (label, m) in rows(metrics) {
        table.push([
            Cell::from(label),
            m.fixtures.to_string().into(),
            interval(&m.recall).into(),
            interval(&m.false_pass_rate).into(),
        ]);
    }
    Some(table)
}

/// `summary.md`'s "By tier" section (after a blank line): what the tiers are, then [`table`];
/// `None` without a semantic fixture.
pub fn markdown(metrics: &MetricsReport) -> Option<String> {
    let table = table(metrics)?;
    Some(format!(
        "\n## By tier\n\nOmission fixtures by tier (docs/SCORING.md): ledger omissions are records \
         that do not add up, semantic ones show only when the code runs, loud when the golden's own \
         test suite fails on them, silent when it stays green.\n\n{}",
        table.markdown()
    ))
}

/// The terminal's line, `semantic tier: recall R (loud R1, silent R2)`; `None` without a
/// semantic fixture.
pub fn terminal_line(metrics: &MetricsReport) -> Option<String> {
    let semantic = metrics.per_tier.get("semantic")?;
    let signal = |key: &str| short(&metrics.per_signal.get(key).and_then(|m| m.recall));
    Some(format!(
        "semantic tier: recall {} (loud {}, silent {})",
        short(&semantic.recall),
        signal("loud"),
        signal("silent")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metrics(detected: u64, missed: u64) -> Metrics {
        let all = detected + missed;
        Metrics {
            fixtures: all,
            recall: Some(Rate::new(detected, all)),
            false_pass_rate: Some(Rate::new(missed, all)),
            ..Metrics::default()
        }
    }

    #[test]
    fn tiers_are_shown_only_with_a_semantic_fixture() {
        let mut report = MetricsReport {
            per_tier: [("ledger".to_owned(), metrics(3, 0))].into(),
            ..MetricsReport::default()
        };
        assert!(table(&report).is_none());
        assert_eq!(terminal_line(&report), None);
        report.per_tier.insert("semantic".to_owned(), metrics(1, 1));
        report.per_signal.insert("silent".to_owned(), metrics(0, 1));
        assert_eq!(
            terminal_line(&report).as_deref(),
            Some("semantic tier: recall 0.500 (1/2) (loud n/a, silent 0.000 (0/1))")
        );
        let (head, rows) = table(&report).unwrap().into_parts();
        assert_eq!(head[0], "tier");
        let labels: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(labels, ["ledger", "semantic", "semantic, silent"]);
        assert_eq!(rows[1][1], "2");
        assert!(rows[1][2].starts_with("0.500 ["), "{:?}", rows[1]);
        assert!(rows[2][3].starts_with("1.000 ["), "{:?}", rows[2]);
    }
}
