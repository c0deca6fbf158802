//! The streaming writers of `junit.xml` and `report.html` against what the records say, on runs of
//! the bundled corpus: `junit.xml` byte for byte equal to the in-memory renderer it replaced
//! (quick-junit's `Report`, kept here as the expected side), and every trial's row, trial view and
//! failing details in `report.html` equal to its record; and a page of three thousand trials
//! paged, searched and opened in headless chromium.

use crate::common;

use std::collections::BTreeMap;

use common::*;
use gatebench::output::render::junit;
use gatebench::output::store::results::{FixtureInfo, RunResults};
use gatebench::output::store::{objects, trial_logs};
use gatebench::score::metrics::MetricsReport;
use gatebench::score::record::TrialRecord;
use quick_junit::{NonSuccessKind, Report, TestCaseStatus, TestSuite};

/// The renderer `junit.xml` had before it was streamed: the whole `Report` built in memory, then
/// serialized by quick-junit.
fn junit_in_memory(results: &RunResults, linked: bool) -> String {
    let infos = results.fixtures.clone().into_vec().unwrap();
    let fixtures: BTreeMap<&str, &FixtureInfo> = infos.iter().map(|f| (f.id.as_str(), f)).collect();
    let all = results.trials.clone().into_vec().unwrap();
    let mut by_category: BTreeMap<&str, Vec<&TrialRecord>> = BTreeMap::new();
    for t in &all {
        by_category.entry(t.category.as_str()).or_default().push(t);
    }
    let ms = std::time::Duration::from_millis;
    let mut report = Report::new(format!("gatebench {}", results.scenario.name));
    report.set_time(ms(results.duration_ms));
    for (category, trials) in by_category {
        let mut suite = TestSuite::new(category);
        suite.set_time(ms(trials.iter().map(|t| t.duration_ms).sum()));
        suite.add_test_cases(trials.iter().map(|t| {
            let log = linked
                .then(|| format!("{}/{}", trial_logs::TRIALS, trial_logs::case_of(results, t)));
            junit::case(
                t,
                fixtures.get(t.fixture.as_str()).copied(),
                log,
                results.objects.as_ref(),
            )
        }));
        report.add_test_suite(suite);
    }
    let mut thresholds = TestSuite::new("thresholds");
    thresholds.add_test_cases(results.thresholds.iter().map(|t| {
        let status = if t.met {
            TestCaseStatus::success()
        } else {
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_type("threshold")
                .set_message(format!("{}: {} (bar {})", t.name, t.figure, t.bar));
            s
        };
        let mut case = quick_junit::TestCase::new(t.name.clone(), status);
        case.set_classname("thresholds");
        case
    }));
    report.add_test_suite(thresholds);
    report.to_string().unwrap()
}

/// The JSON the page embeds in `<script id="{id}" type="application/json">`.
fn embedded(html: &str, id: &str) -> serde_json::Value {
    let open = format!(r#"<script id="{id}" type="application/json">"#);
    assert_eq!(html.matches(&open).count(), 1, "{id}");
    let body = &html[html.find(&open).unwrap() + open.len()..];
    let body = &body[..body.find("</script>").unwrap()];
    assert!(!body.contains('<'), "{id}: a raw < in a script element");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{id}: {e}"))
}

/// The bundled corpus under `scenario`, its outputs checked against its records (read back from
/// `results.json` and its object store, as a reader of the run folder would).
fn check_run(scenario: &str) {
    let reports = tempfile::tempdir().unwrap();
    let finished = bundled(scenario, reports.path(), &[]);
    let results =
        gatebench::output::store::results::read(&finished.dir.join("results.json")).unwrap();
    assert!(results.trials.len() > 100, "the whole corpus");
    let trials = results.trials.clone().into_vec().unwrap();
    let failing: Vec<&TrialRecord> = trials.iter().filter(|t| !t.outcome.is_good()).collect();
    let corpus = gatebench::corpus::load(&root().join("fixtures")).unwrap();
    let all: Vec<&gatebench::corpus::Fixture> = corpus.fixtures.iter().collect();
    let truth_views = trial_logs::views(&all, &corpus).unwrap();

    // junit.xml: the streamed file is the in-memory renderer's document, byte for byte.
    let junit = std::fs::read_to_string(finished.dir.join("junit.xml")).unwrap();
    let expected = junit_in_memory(&results, true);
    assert!(
        junit == expected,
        "{scenario}: junit.xml differs from the in-memory rendering"
    );
    assert_eq!(
        junit::render_linked(&results, false).unwrap(),
        junit_in_memory(&results, false)
    );
    assert_eq!(
        junit.matches("<testcase ").count(),
        results.trials.len() + results.thresholds.len()
    );

    // report.html: every trial's row and view from its record.
    let html = std::fs::read_to_string(finished.dir.join("report.html")).unwrap();
    let rows = embedded(&html, "gatebench-rows");
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), results.trials.len());
    let views = embedded(&html, "gatebench-trials");
    let cases = views["cases"].as_object().unwrap();
    assert_eq!(cases.len(), results.trials.len());
    for (t, row) in trials.iter().zip(rows) {
        let case = results
            .cases
            .iter()
            .find(|(_, c)| c.fixture == t.fixture && c.trial == t.trial)
            .map(|(case, _)| case.clone())
            .unwrap();
        let log = format!("trials/{case}/");
        let anchor = format!("trial-{}-{}", t.fixture, t.trial);
        let detail = (!t.outcome.is_good()).then(|| anchor.clone());
        // The rounds column: each round's verdict in order, "no answer" for a round without one.
        let verdicts: Vec<&str> = row["rounds"].as_str().unwrap().split(" → ").collect();
        let want: Vec<&str> = t
            .rounds
            .iter()
            .map(|r| r.verdict.map_or("no answer", |v| v.as_str()))
            .collect();
        assert_eq!(verdicts, want, "{scenario}: the rounds of {case}");
        let mut row = row.clone();
        row.as_object_mut().unwrap().remove("rounds");
        assert_eq!(
            &row,
            &serde_json::json!({
                "fixture": t.fixture, "category": t.category, "golden": t.golden,
                "trial": t.trial, "outcome": t.outcome.as_str(), "good": t.outcome.is_good(),
                "reason": t.reason, "duration_ms": t.duration_ms,
                "detail": detail, "case": case, "log": log, "retried": t.retried,
            }),
            "{scenario}: the row of {case}"
        );
        let view = &cases[&case];
        assert_eq!(view["fixture"], t.fixture.as_str());
        assert_eq!(view["trial"], t.trial);
        assert_eq!(view["outcome"], t.outcome.as_str());
        assert_eq!(view["reason"], t.reason.as_str());
        assert_eq!(view["log"], log.as_str());
        assert_eq!(view["attempts"], t.attempts.len());
        let full = objects::resolved(results.objects.as_ref(), t).unwrap();
        let rounds = view["rounds"].as_array().unwrap();
        assert_eq!(rounds.len(), full.rounds.len(), "{case}");
        for (seen, r) in rounds.iter().zip(&full.rounds) {
            assert_eq!(seen["round"], r.round);
            assert_eq!(
                seen["verdict"],
                serde_json::json!(r.verdict.map(|v| v.as_str()))
            );
            assert_eq!(seen["duration_ms"], r.duration_ms);
            // Each finding of the round's report, in order, by its title.
            let titles: Vec<&str> = r
                .report
                .as_ref()
                .and_then(|rep| rep["findings"].as_array())
                .into_iter()
                .flatten()
                .filter_map(|f| f["title"].as_str())
                .collect();
            let shown: Vec<&str> = seen["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["title"].as_str().unwrap())
                .collect();
            assert_eq!(shown, titles, "{case} round {}", r.round);
        }
        // What was planted: the diff the trial log holds.
        let planted = finished.dir.join("trials").join(&case).join("planted.diff");
        let fixture = &views["fixtures"][&t.fixture];
        match std::fs::read_to_string(&planted) {
            Ok(diff) => assert_eq!(fixture["diff"], diff.as_str(), "{case}"),
            Err(_) => assert!(fixture["diff"].is_null(), "{case}"),
        }
        let info = results.fixtures.iter().find(|f| f.id == t.fixture).unwrap();
        assert_eq!(fixture["description"], info.description.as_str());
        // A run holds its fixtures slim: what it recorded of each (what it expects, its locus
        // and planted diff) is what the fixture's files say, loaded in full on their own.
        let truth = corpus.get(&t.fixture).expect("the fixture, loaded in full");
        assert_eq!(
            serde_json::to_value(&*info).unwrap(),
            serde_json::to_value(FixtureInfo::of(truth)).unwrap(),
            "{case}: the fixture as the run recorded it"
        );
        let view = truth_views.get(&t.fixture).unwrap().unwrap_or_default();
        assert_eq!(
            fixture["diff"],
            serde_json::json!(view.planted_diff),
            "{case}"
        );
        assert_eq!(fixture["locus"], serde_json::json!(view.locus), "{case}");
        assert!(
            truth.is_golden() || (!view.locus.is_empty() && view.planted_diff.is_some()),
            "{case}: an omission fixture has a locus and a planted diff"
        );
        // Its failing details, once, when it failed; none otherwise.
        let details = format!(r#"<details class="failing" id="{anchor}""#);
        assert_eq!(
            html.matches(&details).count(),
            usize::from(!t.outcome.is_good()),
            "{anchor}"
        );
    }
    assert_eq!(
        views["fixtures"].as_object().unwrap().len(),
        results.fixtures.len()
    );
    assert_eq!(
        html.matches(r#"<details class="failing""#).count(),
        failing.len()
    );
    // No row is in the page's markup: the script builds one page of them.
    assert!(!html.contains("<tr data-outcome="));
}

#[test]
fn the_default_run_s_junit_and_html_written_streaming_say_what_the_records_say() {
    check_run("default.yaml");
}

/// The legacy verifier fails trials: failures and errors carry their descriptions.
#[test]
fn the_legacy_run_s_junit_and_html_written_streaming_say_what_the_records_say() {
    check_run("legacy.yaml");
}

/// The fixtures of the table's rows in the DOM, in order.
fn shown_fixtures(dom: &str) -> Vec<String> {
    let row = regex::Regex::new(
        r#"<tr data-outcome="[a-z-]+" data-search="[^"]*"><td><a class="open-trial" href="\#trial=[^"]*"><code>([^<]*)</code>"#,
    )
    .unwrap();
    assert_eq!(
        row.find_iter(dom).count(),
        dom.matches("<tr data-outcome=").count(),
        "a row of another shape"
    );
    row.captures_iter(dom).map(|c| c[1].to_owned()).collect()
}

/// A page of 30 copies of the legacy run's trials (each copy a fixture of its own, `-xN`), about
/// three thousand rows: one page of 100 rows is in the DOM, the last page is reached, a search
/// finds a trial on a later page, and a trial on a later page opens in the trial view.
/// A run renders every output from its spool (its trials read back one at a time): the same
/// bytes as from the same trials held in memory, and the same metrics, on runs of the bundled
/// corpus with one and with three trials per fixture (where the per-fixture figures count).
fn check_spool_against_memory(scenario: &str, trials: u32) {
    let reports = tempfile::tempdir().unwrap();
    let mut opts = options(
        &root().join("scenarios").join(scenario),
        reports.path(),
        &[],
    );
    opts.trials = trials;
    let spooled = execute(&opts).results;
    assert!(
        !spooled.trials.in_memory(),
        "a run's trials are read back from its spool"
    );
    assert!(
        !spooled.fixtures.in_memory(),
        "a run's fixtures are read back from their spool"
    );
    let mut memory = spooled.clone();
    memory.trials = spooled.trials.clone().into_vec().unwrap().into();
    memory.fixtures = spooled.fixtures.clone().into_vec().unwrap().into();
    assert!(memory.trials.in_memory() && memory.fixtures.in_memory());
    assert!(
        memory.trials.len() > 100 * trials as usize,
        "the whole corpus"
    );

    let json = |r: &RunResults| serde_json::to_string(r).unwrap();
    assert!(json(&spooled) == json(&memory), "{scenario}: results.json");
    assert_eq!(
        gatebench::score::metrics::MetricsReport::of(&spooled.trials),
        gatebench::score::metrics::MetricsReport::of(memory.trials.clone().into_vec().unwrap()),
    );
    assert_eq!(spooled.metrics, MetricsReport::of(&memory.trials));
    assert!(
        gatebench::output::render::summary::markdown(&spooled)
            == gatebench::output::render::summary::markdown(&memory),
        "{scenario}: summary.md"
    );
    assert!(
        junit::render_linked(&spooled, true).unwrap()
            == junit::render_linked(&memory, true).unwrap(),
        "{scenario}: junit.xml"
    );
    let html =
        |r: &RunResults| gatebench::output::render::html::render_with(r, &Default::default(), true);
    assert!(
        html(&spooled).unwrap() == html(&memory).unwrap(),
        "{scenario}: report.html"
    );
    spooled.trials.check().unwrap();
    spooled.fixtures.check().unwrap();
}

#[test]
fn the_default_run_renders_the_same_outputs_from_its_spool_as_from_memory() {
    check_spool_against_memory("default.yaml", 1);
}

#[test]
fn the_legacy_run_with_three_trials_renders_the_same_outputs_from_its_spool_as_from_memory() {
    check_spool_against_memory("legacy.yaml", 3);
}

#[test]
fn a_report_of_three_thousand_trials_shows_one_page_pages_to_the_last_and_finds_and_opens_a_later_trial(
) {
    let Some(browser) = chromium_or_skip("the paged report") else {
        return;
    };
    let reports = tempfile::tempdir().unwrap();
    let finished = bundled("legacy.yaml", reports.path(), &[]);
    let mut results =
        gatebench::output::store::results::read(&finished.dir.join("results.json")).unwrap();
    let (trials, fixtures) = (
        results.trials.clone().into_vec().unwrap(),
        results.fixtures.clone().into_vec().unwrap(),
    );
    let mut copies: Vec<TrialRecord> = Vec::new();
    let mut infos: Vec<FixtureInfo> = Vec::new();
    // Cases computed from the ids (`case_of`), as for a run without recorded cases.
    results.cases = Default::default();
    for copy in 0..30 {
        for t in &trials {
            let mut t = t.clone();
            t.fixture = format!("{}-x{copy}", t.fixture);
            copies.push(t);
        }
        for f in &fixtures {
            let mut f = f.clone();
            f.id = format!("{}-x{copy}", f.id);
            infos.push(f);
        }
    }
    results.fixtures = infos.into();
    // A run's trials are in fixture order, then trial: the rows are too.
    copies.sort_by(|a, b| (&a.fixture, a.trial).cmp(&(&b.fixture, b.trial)));
    results.trials = copies.clone().into();
    let n = copies.len();
    assert!(n >= 3000, "{n}");
    let page = reports.path().join("large.html");
    gatebench::output::render::html::write(&page, &results, &Default::default(), false).unwrap();
    let url = format!("file://{}", page.display());

    let dom = dump_dom(&browser, 10_000, &url);
    assert_eq!(root_attribute(&dom, "data-ready"), Some("1"));
    assert_eq!(
        root_attribute(&dom, "data-shown"),
        Some(n.to_string().as_str())
    );
    let pages = n.div_ceil(100);
    assert_eq!(
        root_attribute(&dom, "data-pages"),
        Some(pages.to_string().as_str())
    );
    assert_eq!(root_attribute(&dom, "data-page"), Some("1"));
    let expected: Vec<&str> = copies[..100].iter().map(|t| t.fixture.as_str()).collect();
    assert_eq!(shown_fixtures(&dom), expected);
    assert!(dom.contains(&format!("1–100 of {n}")));

    // The last page: the remaining trials, ending with the last one.
    let dom = dump_dom(&browser, 10_000, &format!("{url}#page=last"));
    assert_eq!(
        root_attribute(&dom, "data-page"),
        Some(pages.to_string().as_str())
    );
    let rest: Vec<&str> = copies[(pages - 1) * 100..]
        .iter()
        .map(|t| t.fixture.as_str())
        .collect();
    assert_eq!(shown_fixtures(&dom), rest);

    // A search over all rows: a trial of the 25th copy, far past the first page.
    let target = &copies[copies.len() / 2..]
        .iter()
        .find(|t| t.fixture.ends_with("-x24"))
        .unwrap();
    let index = copies
        .iter()
        .position(|t| std::ptr::eq(t, *target))
        .unwrap();
    assert!(index >= 100);
    let dom = dump_dom(
        &browser,
        10_000,
        &format!("{url}#search={}", target.fixture),
    );
    let found: Vec<&str> = copies
        .iter()
        .filter(|t| {
            format!("{} {}", t.fixture, t.category)
                .to_lowercase()
                .contains(&target.fixture.to_lowercase())
        })
        .map(|t| t.fixture.as_str())
        .collect();
    assert!(found.contains(&target.fixture.as_str()));
    assert_eq!(
        root_attribute(&dom, "data-shown"),
        Some(found.len().to_string().as_str())
    );
    assert_eq!(shown_fixtures(&dom), found);

    // Opening that trial shows its view.
    let case = trial_logs::case_of(&results, target);
    let dom = dump_dom(&browser, 10_000, &format!("{url}#trial={case}"));
    assert_eq!(root_attribute(&dom, "data-trial"), Some(case.as_str()));
    let view = &dom[dom.find(r#"<section id="trial-view""#).expect("the view")..];
    let view = &view[..view.find("</section>").unwrap()];
    assert!(
        !view[..view.find('>').unwrap()].contains("hidden"),
        "view hidden"
    );
    assert!(
        view.contains(&format!(
            "{} [{}]: {}",
            target.fixture,
            target.trial,
            target.outcome.as_str()
        )),
        "{view}"
    );
    assert_eq!(
        view.matches(r#"<div class="round">"#).count(),
        target.rounds.len(),
        "{view}"
    );
}
