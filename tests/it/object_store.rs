//! The object store (results schema 2): a run that moves each finished trial's reports into
//! `objects/` as it goes, then writes `results.json` with references, reads back as the same
//! trials an in-memory run of the same fixtures gives; objects are stored once per content.

use std::collections::BTreeSet;
use std::path::Path;

use gatebench::corpus;
use gatebench::corpus::scenario::{PipelineSpec, Scenario};
use gatebench::output::store::objects::{self, Store};
use gatebench::output::store::results;
use gatebench::repo::workdir::WorkRoot;
use gatebench::run::execute;
use gatebench::run::options::{Overrides, RunOptions};
use gatebench::run::runner::{self, RunConfig};
use gatebench::score::record::TrialRecord;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A Loom golden with its omissions, and verification-loop fixtures (several rounds each).
const FILTERS: [&str; 3] = [
    "subscription-cancel*",
    "loop-wordcount-converges-in-three",
    "loop-wordcount-acceptance-unchecked",
];

/// A trial as JSON without what differs from one run to the next (times, folders) and without
/// the references themselves (the in-memory run has none).
fn normalized(t: &TrialRecord) -> serde_json::Value {
    let mut t = t.clone();
    t.duration_ms = 0;
    t.materialize_ms = 0;
    t.work_dir = String::new();
    for r in &mut t.rounds {
        r.duration_ms = 0;
        r.report_ref = None;
        r.process_ref = None;
        r.fixer_ref = None;
    }
    serde_json::to_value(&t).unwrap()
}

fn in_memory(corpus: &corpus::Corpus, store: Option<&Store>) -> Vec<TrialRecord> {
    let filters: Vec<String> = FILTERS.iter().map(|s| s.to_string()).collect();
    let selected = corpus::scenario::select(corpus, &Default::default(), &filters).unwrap();
    let root = WorkRoot::create(None, false).unwrap();
    let gate = gatebench::pipeline::select::from_spec(&PipelineSpec::builtin(), Path::new("."));
    let scoring = gatebench::pipeline::select::scoring(gate.as_ref());
    let cfg = RunConfig {
        jobs: 2,
        trials: 1,
        max_rounds: 3,
        base_ref: "main".into(),
        work_root: &root,
        cache: None,
        scoring: &scoring,
        scenario: "t".into(),
        on_modified: Default::default(),
        objects: store,
        retries: 0,
        on_fixture: None,
    };
    runner::run(&selected, gate.as_ref(), &cfg, &|_| {})
}

#[test]
fn a_run_written_through_the_object_store_reads_back_as_the_in_memory_run() {
    let corpus = corpus::load(&root().join("fixtures")).unwrap();
    let memory = in_memory(&corpus, None);
    assert!(
        memory.len() >= 4,
        "the selection holds {} trials",
        memory.len()
    );
    assert!(
        memory.iter().any(|t| t.rounds.len() >= 2),
        "a fixture of several rounds is in the selection"
    );
    assert!(memory
        .iter()
        .all(|t| t.rounds.iter().all(|r| r.report.is_some())));

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("scenario.yaml");
    std::fs::write(
        &file,
        format!(
            "name: t\nfixtures_dir: {}\npipeline: {{kind: builtin}}\nmax_rounds: 3\n",
            root().join("fixtures").display()
        ),
    )
    .unwrap();
    let options = RunOptions::resolve(
        Scenario::load(&file).unwrap(),
        Overrides {
            filters: FILTERS.iter().map(|s| s.to_string()).collect(),
            jobs: Some(2),
            reports_dir: Some(dir.path().join("reports")),
            ..Overrides::default()
        },
    );
    let finished = execute::execute(&options, &|_, _, _| {}).unwrap();
    // What the run kept in memory: references only.
    for t in &finished.results.trials {
        for r in &t.rounds {
            assert!(r.report.is_none() && r.process.is_none() && r.fixer.is_none());
            assert!(r.report_ref.is_some(), "{} round {}", t.fixture, r.round);
        }
    }
    let text = std::fs::read_to_string(finished.dir.join("results.json")).unwrap();
    assert!(
        !text.contains("\"report\":"),
        "a report inline in results.json"
    );
    assert!(text.contains("\"report_ref\":"));

    let mut read = results::read(&finished.dir.join("results.json")).unwrap();
    // Read back with references only (one trial's reports in memory at a time), restored whole.
    assert!(read
        .trials
        .iter()
        .all(|t| t.rounds.iter().all(|r| r.report.is_none())));
    read.resolve().unwrap();
    assert_eq!(read.schema_version, results::SCHEMA_VERSION);
    let got: Vec<_> = read.trials.iter().map(|t| normalized(&t)).collect();
    let want: Vec<_> = memory.iter().map(normalized).collect();
    assert_eq!(got, want);
    // Left out of a one-trial run's file, computed again on reading.
    assert!(!text.contains("\"fixture_trials\":"));
    assert_eq!(read.fixture_trials.len(), read.fixtures.len());

    // The run's own records, restored from its store, are the file's.
    let mut kept = finished.results;
    kept.resolve().unwrap();
    let kept: Vec<_> = kept.trials.iter().map(|t| normalized(&t)).collect();
    assert_eq!(kept, got);
}

#[test]
fn identical_content_is_stored_once_and_a_damaged_object_is_refused() {
    let corpus = corpus::load(&root().join("fixtures")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path().join(objects::DIR));
    // The store's owner makes its folder; `put` never does.
    std::fs::create_dir_all(store.dir()).unwrap();
    // The same fixtures twice into one store: every report is identical, so stored once.
    let first = in_memory(&corpus, Some(&store));
    let count = std::fs::read_dir(store.dir()).unwrap().count();
    let second = in_memory(&corpus, Some(&store));
    assert_eq!(std::fs::read_dir(store.dir()).unwrap().count(), count);
    let refs = |trials: &[TrialRecord]| -> BTreeSet<String> {
        trials
            .iter()
            .flat_map(|t| t.rounds.iter().filter_map(|r| r.report_ref.clone()))
            .collect()
    };
    assert_eq!(refs(&first), refs(&second));
    assert_eq!(refs(&first).len(), count);

    let mut trial = first[0].clone();
    assert!(objects::has_references(&trial));
    let hash = trial.rounds[0].report_ref.clone().unwrap();
    std::fs::write(store.dir().join(format!("{hash}.json")), b"{}").unwrap();
    let err = store.resolve(&mut trial).unwrap_err().to_string();
    assert!(err.contains("does not match its name"), "{err}");
}
