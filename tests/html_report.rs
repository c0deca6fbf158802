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
