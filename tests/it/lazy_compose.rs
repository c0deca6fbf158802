//! Fixtures loaded again when their trial starts (issue 14): an omission fixture whose overlay
//! file is deleted after the corpus was loaded ends its trial as an `error` naming the fixture,
//! and the run goes on (the other fixtures are judged as usual).

use crate::common;
use common::copy_dir;

use std::path::Path;

use gatebench::corpus::scenario::Scenario;
use gatebench::run::execute;
use gatebench::run::options::{Overrides, RunOptions};

/// Every file under `dir`, recursively.
fn files_under(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn a_fixture_whose_overlay_file_is_deleted_after_loading_is_an_error_naming_its_fixture() {
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let dir = tempfile::tempdir().unwrap();
    let fixtures = dir.path().join("fixtures");
    let broken = "subscription-cancel-acceptance-unchecked";
    let intact = "subscription-cancel-task-state-missing";
    for id in ["subscription-cancel", broken, intact] {
        copy_dir(&bundled.join(id), &fixtures.join(id));
    }
    let scenario_file = dir.path().join("lazy.yaml");
    std::fs::write(
        &scenario_file,
        format!(
            "name: lazy\nfixtures_dir: {}\npipeline: {{kind: builtin}}\n",
            fixtures.display()
        ),
    )
    .unwrap();
    let options = RunOptions::resolve(
        Scenario::load(&scenario_file).unwrap_or_else(|e| panic!("{e}")),
        Overrides {
            jobs: Some(2),
            reports_dir: Some(dir.path().join("reports")),
            ..Overrides::default()
        },
    );
    let corpus = execute::load_corpus(&options).unwrap_or_else(|e| panic!("{e:?}"));
    let selected = execute::check_selection(
        &options.scenario,
        &options.fixtures_dir,
        &corpus,
        &options.filters,
    )
    .unwrap();
    assert_eq!(selected.len(), 3);

    // After loading, before the run: the planted overlay loses its file.
    let mut planted = Vec::new();
    files_under(&fixtures.join(broken).join("plant"), &mut planted);
    let removed = planted.first().expect("the fixture plants a file").clone();
    std::fs::remove_file(&removed).unwrap();

    let finished = execute::run_selected(&options, &corpus, &selected, &|_, _, _| {}).unwrap();
    let trial = |id: &str| {
        finished
            .results
            .trials
            .iter()
            .find(|t| t.fixture == id)
            .unwrap_or_else(|| panic!("no trial of {id}"))
    };
    let t = trial(broken);
    assert_eq!(t.outcome.as_str(), "error", "{t:?}");
    let why = t.harness_error.as_deref().unwrap_or_default();
    // A run holds its omission fixtures slim and loads each again when its trial starts: the
    // fixture it loads now is not the one it checked (its content hash differs).
    let folder = fixtures.join(broken);
    assert!(
        why.contains(&*folder.to_string_lossy()) && why.contains("changed since"),
        "the reason names the fixture whose files changed: {why}"
    );
    assert!(t.rounds.is_empty(), "nothing was verified: {:?}", t.rounds);
    // The run went on: the other fixtures were materialized and judged.
    assert_eq!(trial(intact).outcome.as_str(), "detected");
    assert_eq!(trial("subscription-cancel").outcome.as_str(), "passed");
}
