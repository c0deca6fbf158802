//! The HTML report in a real headless browser (Debian's `chromium`): the page is rendered, its
//! script runs, and the DOM it leaves is checked: the headline, three charts drawn by Chart.js,
//! the fixture table, the outcome filter (driven through the URL fragment), and the details of a
//! failing fixture. Without chromium the test is skipped loudly, except in CI (`CI` set), where
//! it fails.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            let out = Command::new("sh")
                .args(["-c", &format!("command -v {name}")])
                .output()
                .ok()?;
            let path = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            (out.status.success() && !path.is_empty()).then(|| PathBuf::from(path))
        })
}

/// The DOM after the page's scripts ran.
fn dump_dom(browser: &Path, url: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--window-size=1280,2000",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--dump-dom", url])
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The value of `name="..."` on the `<html>` element.
fn root_attribute<'a>(dom: &'a str, name: &str) -> Option<&'a str> {
    let open = &dom[dom.find("<html")?..];
    let open = &open[..open.find('>')?];
    let at = open.find(&format!("{name}=\""))? + name.len() + 2;
    open[at..].split('"').next()
}

#[test]
fn the_html_report_renders_its_charts_table_and_filter_in_a_headless_browser() {
    let Some(browser) = chromium() else {
        if std::env::var_os("CI").is_some() {
            panic!("chromium is not installed, and CI is set: .ci/run must install it");
        }
        eprintln!(
            "\n\n*** SKIPPED: the HTML report was NOT checked in a browser: chromium is not installed \
             (apt-get install chromium). In CI (CI set) this test fails instead. ***\n"
        );
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

    let dom = dump_dom(&browser, &url);
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

    // The filter, preselected through the fragment: only the passed golden stays visible.
    let dom = dump_dom(&browser, &format!("{url}#outcome=passed"));
    assert_eq!(root_attribute(&dom, "data-shown"), Some("1"));
    assert_eq!(dom.matches("<tr data-outcome=").count(), rows);
    let hidden = regex::Regex::new(r#"<tr data-outcome="[a-z-]+" data-search="[^"]*" hidden="""#)
        .unwrap()
        .find_iter(&dom)
        .count();
    assert_eq!(hidden, rows - 1);
}

/// The trial view: from the fixture table (`#trial=<case>`), a failing trial's planted diff with
/// the locus highlighted beside the findings the pipeline reported, the one at the locus marked.
/// The verifier false-passes the omission while naming task T2, a locus entry of the fixture.
#[test]
fn a_failing_trial_opens_with_its_planted_diff_its_findings_and_the_locus_highlighted() {
    let Some(browser) = chromium() else {
        if std::env::var_os("CI").is_some() {
            panic!("chromium is not installed, and CI is set: .ci/run must install it");
        }
        eprintln!(
            "\n\n*** SKIPPED: the trial view was NOT checked in a browser: no chromium ***\n"
        );
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
    let html = std::fs::read_to_string(&page).unwrap();
    // One click from the fixture table opens it; the log folder is linked beside it.
    assert!(
        html.contains(&format!(r##"href="#trial={case}""##)),
        "no link"
    );
    assert!(html.contains(&format!(r#"href="trials/{case}/""#)));

    let dom = dump_dom(&browser, &format!("file://{}#trial={case}", page.display()));
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
