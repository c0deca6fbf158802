//! Tests only: `metrics.rs`'s unit tests, moved beside it.

use super::*;

#[test]
fn fixtures_and_pass_hat_k_are_counted_per_category_and_kind_one_fixture_at_a_time() {
    let trial = |id: &str, category: &str, kind: Option<Kind>, n: u32, outcome: Outcome| {
        let mut t = TrialRecord::named(id, category, kind.is_none(), n);
        t.kind = kind;
        t.outcome = outcome;
        t
    };
    let (absent, stale) = (Some(Kind::ReviewMissing), Some(Kind::EvidenceMissing));
    // In fixture order: `a` flaky (x, absent), `b` good twice (y, stale), `c` a golden (x)
    // that passed twice, `d` missed twice (y, absent).
    let trials = vec![
        trial("a", "x", absent, 0, Outcome::Detected),
        trial("a", "x", absent, 1, Outcome::FalsePass),
        trial("b", "y", stale, 0, Outcome::Detected),
        trial("b", "y", stale, 1, Outcome::Detected),
        trial("c", "x", None, 0, Outcome::Passed),
        trial("c", "x", None, 1, Outcome::Passed),
        trial("d", "y", absent, 0, Outcome::FalsePass),
        trial("d", "y", absent, 1, Outcome::FalsePass),
    ];
    let (report, kept) = MetricsReport::with_fixtures(&trials, true);
    let ids: Vec<&str> = kept.iter().map(|f| f.fixture.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "d"]);
    let pass_hat_k = |m: &Metrics| {
        let r = m.repeat.as_ref().unwrap().pass_hat_k;
        (m.fixtures, r.numerator, r.denominator)
    };
    // Good in every trial: b and c of four; c of x's two; b of y's two; neither absent one.
    assert_eq!(pass_hat_k(&report.overall), (4, 2, 4));
    assert_eq!(pass_hat_k(&report.per_category["x"]), (2, 1, 2));
    assert_eq!(pass_hat_k(&report.per_category["y"]), (2, 1, 2));
    assert_eq!(pass_hat_k(&report.per_kind["review-missing"]), (2, 0, 2));
    assert_eq!(pass_hat_k(&report.per_kind["evidence-missing"]), (1, 1, 1));
    assert_eq!(
        report.overall.repeat.as_ref().unwrap().flaky_fixtures,
        ["a"]
    );
    // Without `keep`, the same figures and no summaries.
    let (same, none) = MetricsReport::with_fixtures(&trials, false);
    assert_eq!((same, none.len()), (report, 0));
}

/// Omission trials by tier and semantic ones by signal; the golden in neither (its false
/// alarm counted once, overall); a signal on a ledger trial (an old or edited file) ignored.
#[test]
fn omission_trials_are_counted_per_tier_and_semantic_ones_per_signal() {
    let trial = |id: &str, tier: Tier, signal: Option<Signal>, n: u32, outcome: Outcome| {
        let golden = id == "g";
        let mut t = TrialRecord::named(id, "c", golden, n);
        t.kind = (!golden).then_some(Kind::ObligationNotImplemented);
        (t.tier, t.signal, t.outcome) = (tier, signal, outcome);
        t
    };
    let (loud, silent) = (Some(Signal::Loud), Some(Signal::Silent));
    let trials = vec![
        trial("a", Tier::Semantic, loud, 0, Outcome::Detected),
        trial("a", Tier::Semantic, loud, 1, Outcome::Detected),
        trial("b", Tier::Semantic, silent, 0, Outcome::FalsePass),
        trial("b", Tier::Semantic, silent, 1, Outcome::Detected),
        trial("c", Tier::Semantic, silent, 0, Outcome::WrongReason),
        trial("c", Tier::Semantic, silent, 1, Outcome::Error),
        trial("g", Tier::Ledger, None, 0, Outcome::FalseAlarm),
        trial("g", Tier::Ledger, None, 1, Outcome::Passed),
        trial("l", Tier::Ledger, silent, 0, Outcome::Detected),
        trial("l", Tier::Ledger, silent, 1, Outcome::FalsePass),
    ];
    let report = MetricsReport::of(&trials);
    let figures = |m: &Metrics| {
        let r = |r: Option<Rate>| r.map(|r| (r.numerator, r.denominator));
        (
            (m.fixtures, m.trials, m.errors),
            r(m.recall),
            r(m.false_pass_rate),
            r(m.false_alarm_rate),
        )
    };
    let keys = |m: &BTreeMap<String, Metrics>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&report.per_tier), ["ledger", "semantic"]);
    assert_eq!(keys(&report.per_signal), ["loud", "silent"]);
    assert_eq!(
        figures(&report.per_tier["semantic"]),
        ((3, 6, 1), Some((3, 5)), Some((1, 5)), None)
    );
    assert_eq!(
        figures(&report.per_tier["ledger"]),
        ((1, 2, 0), Some((1, 2)), Some((1, 2)), None)
    );
    assert_eq!(
        figures(&report.per_signal["loud"]),
        ((1, 2, 0), Some((2, 2)), Some((0, 2)), None)
    );
    assert_eq!(
        figures(&report.per_signal["silent"]),
        ((2, 4, 1), Some((1, 3)), Some((1, 3)), None)
    );
    assert_eq!(
        figures(&report.overall),
        ((5, 10, 1), Some((4, 7)), Some((2, 7)), Some((1, 2)))
    );
    let pass_hat_k = |m: &Metrics| m.repeat.as_ref().map(|r| r.pass_hat_k.numerator);
    assert_eq!(pass_hat_k(&report.per_signal["loud"]), Some(1));
    assert_eq!(pass_hat_k(&report.per_signal["silent"]), Some(0));
    // A run without semantic fixtures has no signal groups, and writes none.
    let ledger_only = MetricsReport::of(&trials[6..]);
    assert_eq!(keys(&ledger_only.per_tier), ["ledger"]);
    let json = serde_json::to_value(&ledger_only).unwrap();
    assert!(json.get("per_signal").is_none(), "{json}");
}

#[test]
fn a_failed_golden_outranks_a_false_pass_in_the_exit_code() {
    let m = Metrics {
        outcomes: [
            (Outcome::FalsePass, 1),
            (Outcome::FalseAlarm, 1),
            (Outcome::Detected, 1),
            (Outcome::Passed, 1),
        ]
        .into(),
        false_pass_rate: Some(Rate::new(1, 2)),
        recall: Some(Rate::new(1, 2)),
        ..Metrics::default()
    };
    let judged = judge(&m, &Thresholds::default());
    assert_eq!(judged.iter().filter(|t| !t.met).count(), 3);
    assert_eq!(exit_code_of(&judged), exit_code::GOLDEN_FAILED);
}

#[test]
fn a_category_below_its_recall_bar_is_named_and_others_are_judged_by_the_wildcard() {
    let metrics = |detected, missed| Metrics {
        recall: Some(Rate::new(detected, detected + missed)),
        ..Metrics::default()
    };
    let report = MetricsReport {
        overall: Metrics::default(),
        per_category: [
            ("evidence".to_owned(), metrics(3, 1)),
            ("review".to_owned(), metrics(4, 0)),
            ("golden".to_owned(), Metrics::default()),
        ]
        .into(),
        ..MetricsReport::default()
    };
    let thresholds = Thresholds {
        min_category_recall: [("*".to_owned(), 0.9), ("review".to_owned(), 1.0)].into(),
        ..Thresholds::default()
    };
    let judged = judge_categories(&report, &thresholds);
    let names: Vec<(&str, bool)> = judged.iter().map(|t| (t.name.as_str(), t.met)).collect();
    assert_eq!(
        names,
        [("recall of evidence", false), ("recall of review", true)]
    );
    assert_eq!(judged[0].figure, "0.750 (3/4)");
    assert_eq!(judged[0].bar, ">= 0.900");
    assert_eq!(exit_code_of(&judged), exit_code::THRESHOLDS);
}

#[test]
fn a_false_pass_breaks_the_default_thresholds() {
    let m = Metrics {
        outcomes: [(Outcome::FalsePass, 1), (Outcome::Detected, 9)].into(),
        false_pass_rate: Some(Rate::new(1, 10)),
        recall: Some(Rate::new(9, 10)),
        ..Metrics::default()
    };
    assert_eq!(
        exit_code_of(&judge(&m, &Thresholds::default())),
        exit_code::THRESHOLDS
    );
}
