//! Helpers shared by the end-to-end tests (`run.rs`, `ci_outputs.rs`, `shard.rs`,
//! `html_report.rs`, `streaming_outputs.rs`): small scenarios over the bundled corpus, run through
//! the library or the binary, and the page in headless Chromium.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use gatebench::corpus::scenario::Scenario;
use gatebench::output::store::results::RunResults;
use gatebench::run::execute;
use gatebench::run::options::{Overrides, RunOptions};

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Two omission fixtures planted in one golden: with the golden, three fixtures.
pub const SMALL: [&str; 2] = [
    "subscription-cancel-task-state-missing",
    "subscription-cancel-evidence-stale-tree",
];

/// Writes a scenario into `dir` that reads the bundled fixtures; `body` is the rest of the YAML.
pub fn scenario(dir: &Path, name: &str, body: &str) -> PathBuf {
    let file = dir.join(format!("{name}.yaml"));
    let text = format!(
        "name: {name}\nfixtures_dir: {}\n{body}",
        root().join("fixtures").display()
    );
    std::fs::write(&file, text).unwrap();
    file
}

pub fn options(scenario_file: &Path, reports: &Path, filters: &[&str]) -> RunOptions {
    let scenario = Scenario::load(scenario_file).unwrap_or_else(|e| panic!("{e}"));
    RunOptions::resolve(
        scenario,
        Overrides {
            filters: filters.iter().map(|s| s.to_string()).collect(),
            jobs: Some(2),
            reports_dir: Some(reports.to_path_buf()),
            ..Overrides::default()
        },
    )
}

pub fn execute(options: &RunOptions) -> execute::Finished {
    execute::execute(options, &|_, _, _| {}).unwrap_or_else(|e| panic!("{e:?}"))
}

/// Runs the bundled scenario `name` (`default.yaml`, `legacy.yaml`) on `filters`.
pub fn bundled(name: &str, reports: &Path, filters: &[&str]) -> execute::Finished {
    execute(&options(
        &root().join("scenarios").join(name),
        reports,
        filters,
    ))
}

/// (fixture, trial, outcome) of every trial: what must not change between equivalent runs.
pub fn outcomes(r: &RunResults) -> Vec<(String, u32, &'static str)> {
    r.trials
        .iter()
        .map(|t| (t.fixture.clone(), t.trial, t.outcome.as_str()))
        .collect()
}

pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn gatebench(args: &[&str], cwd: &Path) -> Output {
    gatebench_env(args, cwd, &[])
}

pub fn gatebench_env(args: &[&str], cwd: &Path, env: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gatebench"));
    cmd.args(args)
        .current_dir(cwd)
        .env_remove("GITHUB_STEP_SUMMARY");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// insta settings whose filters replace what changes from run to run (run ids, the temporary
/// folder, timings) with placeholders.
pub fn redactions(temp: &Path) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex::escape(&temp.display().to_string()), "[tmp]");
    settings.add_filter(r"\d{8}T\d{6}Z-[A-Za-z0-9_-]+", "[run-id]");
    settings.add_filter(r#"time="[0-9.]+""#, r#"time="[t]""#);
    settings.add_filter(r"[+-]?\d+\.\d+s\b", "[secs]");
    settings
}

/// The headless Chromium on this machine, if any (`.ci/run` installs it).
pub fn chromium() -> Option<PathBuf> {
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

/// The browser for a test that checks `what` in one; `None`, with the skip said loudly, where
/// chromium is not installed. In CI (`CI` set) a missing browser fails the test instead.
pub fn chromium_or_skip(what: &str) -> Option<PathBuf> {
    let browser = chromium();
    if browser.is_none() {
        if std::env::var_os("CI").is_some() {
            panic!("chromium is not installed, and CI is set: .ci/run must install it");
        }
        eprintln!(
            "\n\n*** SKIPPED: {what} was NOT checked in a browser: chromium is not installed \
             (apt-get install chromium). In CI (CI set) this test fails instead. ***\n"
        );
    }
    browser
}

/// The DOM after the page's scripts ran (`virtual_ms` of virtual time for them).
pub fn dump_dom(browser: &Path, virtual_ms: u32, url: &str) -> String {
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
        ])
        .arg(format!("--virtual-time-budget={virtual_ms}"))
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
pub fn root_attribute<'a>(dom: &'a str, name: &str) -> Option<&'a str> {
    let open = &dom[dom.find("<html")?..];
    let open = &open[..open.find('>')?];
    let at = open.find(&format!("{name}=\""))? + name.len() + 2;
    open[at..].split('"').next()
}

/// Copies a folder recursively (a corpus to change in a test).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
