//! The HTML report in a real headless browser (Debian's `chromium`): the page is rendered, its
//! script runs, and the DOM it leaves is checked: the headline, three charts drawn by Chart.js,
//! the fixture table (built by the script, one page at a time), the outcome filter (driven
//! through the URL fragment), and the details of a failing fixture. Without chromium the test is skipped loudly, except in CI (`CI` set), where
//! it fails.

use crate::common;

use common::*;

#[test]
fn the_html_report_renders_its_charts_table_and_filter_in_a_headless_browser() {
    let Some(browser) = chromium_or_skip("the HTML report") else {
        return;
    };
    let reports = tempfile::tempdir().unwrap();
    let finished = bundled("legacy.yaml", reports.path(), &SMALL);
    let page = finished.dir.join("report.html");
    let html = std::fs::read_to_string(&page).unwrap();
    // Self-contained: nothing loaded from elsewhere (Chart.js's comments name its web site).
    for loads in [
        "<script src",
        "<link",
        "src=\"http",
        "href=\"http",
        "url(http",
        "@import",
    ] {
        assert!(!html.contains(loads), "the report loads something: {loads}");
    }
    let url = format!("file://{}", page.display());

    let dom = dump_dom(&browser, 5000, &url);
    assert_eq!(
        root_attribute(&dom, "data-ready"),
        Some("1"),
        "the script did not finish"
    );
    assert_eq!(
        root_attribute(&dom, "data-charts"),
        Some("3"),
        "charts drawn"
    );
    // Chart.js sizes each canvas it draws on.
    assert_eq!(dom.matches(r#"data-rendered="true""#).count(), 3);
    for id in ["chart-recall", "chart-false-pass", "chart-rounds"] {
        let at = dom
            .find(&format!(r#"id="{id}""#))
            .unwrap_or_else(|| panic!("{id}"));
        let canvas = &dom[dom[..at].rfind("<canvas").unwrap()..];
        let canvas = &canvas[..canvas.find('>').unwrap()];
        assert!(
            canvas.contains("height=") && canvas.contains("width="),
            "{canvas}"
        );
    }
    assert!(dom.contains(r#"id="headline""#));
    assert!(dom.contains("false-pass rate"));
    let rows = dom.matches("<tr data-outcome=").count();
    assert_eq!(rows, finished.results.trials.len());
    assert_eq!(
        root_attribute(&dom, "data-shown"),
        Some(rows.to_string().as_str())
    );
    for control in [
        r#"name="outcome""#,
        r#"id="fixture-search""#,
        r#"id="show-failing""#,
    ] {
        assert!(dom.contains(control), "filter control {control}");
    }
    // What was planted and what the pipeline said, for a false pass.
    assert!(dom.contains(r#"id="trial-subscription-cancel-task-state-missing-0""#));
    assert!(dom.contains("validator=task-set-complete"));

    // The filter, preselected through the fragment: only the passed golden stays in the table
    // (the script builds only the rows of the page it shows).
    let dom = dump_dom(&browser, 5000, &format!("{url}#outcome=passed"));
    assert_eq!(root_attribute(&dom, "data-shown"), Some("1"));
    assert_eq!(dom.matches("<tr data-outcome=").count(), 1);
    assert_eq!(dom.matches(r#"<tr data-outcome="passed""#).count(), 1);
    assert!(rows > 1);
}

/// The trial view: from the fixture table (`#trial=<case>`), a failing trial's planted diff with
/// the locus highlighted beside the findings the pipeline reported, the one at the locus marked.
/// The verifier false-passes the omission while naming task T2, a locus entry of the fixture.
#[test]
fn a_failing_trial_opens_with_its_planted_diff_its_findings_and_the_locus_highlighted() {
    let Some(browser) = chromium_or_skip("the trial view") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let pipelines = root().join("tests/pipelines");
    let file = scenario(
        dir.path(),
        "names-t2",
        &format!(
            "pipeline:\n  kind: command\n  command: '. \"$GB_PIPELINES/report.sh\"; SEVERITY=3 \
             write_report pass \"task T2 has no state file\"'\n  env: {{GB_PIPELINES: '{p}'}}\n  \
             sandbox: {{read: ['{p}']}}\n",
            p = pipelines.display()
        ),
    );
    let finished = execute(&options(&file, &dir.path().join("reports"), &SMALL[..1]));
    let omission = SMALL[0];
    let t = finished
        .results
        .trials
        .iter()
        .find(|t| t.fixture == omission)
        .unwrap();
    assert_eq!(t.outcome.as_str(), "false-pass");
    let case = finished
        .results
        .cases
        .iter()
        .find(|(_, c)| c.fixture == omission)
        .map(|(case, _)| case.clone())
        .unwrap();
    let page = finished.dir.join("report.html");

    let dom = dump_dom(
        &browser,
        5000,
        &format!("file://{}#trial={case}", page.display()),
    );
    // One click from the fixture table opens it; the log folder is linked beside it.
    assert!(
        dom.contains(&format!(r##"<a class="open-trial" href="#trial={case}">"##)),
        "no link"
    );
    assert!(dom.contains(&format!(
        r#"<a class="trial-log" href="trials/{case}/">trials/{case}/</a>"#
    )));
    assert_eq!(root_attribute(&dom, "data-trial"), Some(case.as_str()));
    let view = &dom[dom.find(r#"<section id="trial-view""#).expect("the view")..];
    let view = &view[..view.find("</section>").unwrap()];
    assert!(
        !view[..view.find('>').unwrap()].contains("hidden"),
        "view hidden"
    );
    // The planted diff: the fixture deletes T2's state file from its golden.
    assert!(
        view.contains("--- a/specs/subscription-cancel/task-states/T2.state.json"),
        "{view}"
    );
    // The locus (T2's state file and task file, task T2) highlighted in the diff.
    let highlighted = root_attribute(&dom, "data-locus-lines")
        .unwrap()
        .parse::<u32>()
        .unwrap();
    assert!(highlighted > 0, "no locus line highlighted");
    assert_eq!(
        view.matches(r#"class="dl file locus""#).count()
            + view.matches(r#"class="dl del locus""#).count()
            + view.matches(r#"class="dl add locus""#).count()
            + view.matches(r#"class="dl locus""#).count(),
        highlighted as usize
    );
    assert!(view.contains("locus: specs/subscription-cancel/task-states/T2.state.json"));
    // The findings: round 1's, the one naming T2 marked as pointing at the locus.
    assert!(view.contains("round 1: pass"), "{view}");
    assert!(
        view.contains(r#"<li class="finding at-locus">[3] task T2 has no state file"#),
        "{view}"
    );
    assert_eq!(root_attribute(&dom, "data-findings-at-locus"), Some("1"));
}

/// The mutation section: a verifier that says PASS whatever the repository holds passes every
/// mutant, so every mutant is a survivor, listed first with what its mutation changed: here
/// `delete-task-state` deletes a task's state file from the golden.
#[test]
fn a_run_with_a_surviving_mutant_shows_it_in_the_mutation_section_with_its_diff() {
    let Some(browser) = chromium_or_skip("the mutation section") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(
        dir.path(),
        "survivors",
        &format!(
            "fixtures:\n  tags: [mutant]\nmutants:\n  goldens: [subscription-cancel]\n  \
             operators: [delete-task-state]\npipeline:\n  kind: command\n  command: [sh, {p}/always-pass.sh]\n  \
             sandbox: {{read: ['{p}']}}\n",
            p = root().join("tests/pipelines").display()
        ),
    );
    let finished = execute(&options(&file, &dir.path().join("reports"), &[]));
    let survivors: Vec<String> = finished
        .results
        .trials
        .iter()
        .filter(|t| !t.golden)
        .map(|t| t.fixture.clone())
        .collect();
    assert!(!survivors.is_empty());
    let page = finished.dir.join("report.html");
    let dom = dump_dom(&browser, 5000, &format!("file://{}", page.display()));
    assert_eq!(root_attribute(&dom, "data-ready"), Some("1"));
    let section = &dom[dom
        .find(r#"<section id="mutation">"#)
        .expect("a mutation section")..];
    let section = &section[..section.find("</section>").unwrap()];
    // The score 0/n with its Wilson interval.
    let n = survivors.len() as u64;
    let rate = gatebench::score::rate::Rate::new(0, n);
    assert!(section.contains(&format!(
        "95% CI [0.000, {:.3}] (Wilson), 0/{n} mutant trials detected",
        rate.high
    )));
    assert!(section.contains(&format!(
        r#"<div class="value" id="mutation-survivor-count">{n}</div>"#
    )));
    // Survivors first: before the per-operator table, each with its diff filled in by the page.
    let table = section.find(r#"id="mutation-operators""#).unwrap();
    assert_eq!(
        root_attribute(&dom, "data-survivor-diffs"),
        Some(n.to_string().as_str())
    );
    for id in &survivors {
        let at = section
            .find(&format!(
                r#"<details class="survivor" data-fixture="{id}" open"#
            ))
            .unwrap_or_else(|| panic!("{id} not listed open"));
        assert!(at < table);
        let entry = &section[at..];
        let entry = &entry[..entry.find("</details>").unwrap()];
        let task = id.rsplit("--").next().unwrap().to_uppercase();
        let deleted = format!("--- a/specs/subscription-cancel/task-states/{task}.state.json");
        assert!(entry.contains(&deleted), "{id}: {entry}");
        assert!(entry.contains("+++ /dev/null"), "{entry}");
        assert!(entry.contains("locus: "), "{entry}");
    }
    // The operator's row: 0.000, every trial in round 1 (not the expected round 2).
    let row = &section[table..];
    let row = &row[row
        .find("<code>delete-task-state</code>")
        .expect("operator row")..];
    let row = &row[..row.find("</tr>").unwrap()];
    assert!(row.contains(">0.000<"), "{row}");
    assert!(row.contains(&format!(">0/{n}<")), "{row}");
    assert!(section.contains(r#"id="mutation-kinds""#));
    assert!(section.contains(r#"id="mutation-goldens""#));
}
