//! Sharding and merge (issue 6): a suite run as three shards and merged gives the same outcomes,
//! metrics and thresholds as the unsharded run; shards that do not fit together are refused
//! with errors naming the files.

use crate::common;

use std::path::PathBuf;
use std::time::SystemTime;

use common::*;
use gatebench::output::store::results::RunResults;
use gatebench::run::merge;
use gatebench::shard::Shard;

/// Every omission planted in `subscription-cancel` and its golden: enough fixtures that each of
/// three shards gets some.
const SUITE: [&str; 1] = ["subscription-cancel*"];

fn shards(scenario: &str, reports: &std::path::Path, count: u32) -> Vec<(PathBuf, RunResults)> {
    (1..=count)
        .map(|index| {
            let mut opts = options(&root().join("scenarios").join(scenario), reports, &SUITE);
            opts.shard = Some(Shard { index, count });
            let finished = execute(&opts);
            (finished.dir.join("results.json"), finished.results)
        })
        .collect()
}

fn messages(errors: Vec<gatebench::error::Error>) -> String {
    errors
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn three_shards_merged_give_the_outcomes_of_the_unsharded_run() {
    let reports = tempfile::tempdir().unwrap();
    let whole = bundled("default.yaml", reports.path(), &SUITE).results;
    let parts = shards("default.yaml", reports.path(), 3);
    for (_, part) in &parts {
        assert!(!part.trials.is_empty(), "an empty shard tests nothing here");
        assert!(part.trials.len() < whole.trials.len());
    }
    let sizes: usize = parts.iter().map(|(_, p)| p.trials.len()).sum();
    assert_eq!(sizes, whole.trials.len());
    let merged =
        merge::merge(parts, SystemTime::now()).unwrap_or_else(|e| panic!("{}", messages(e)));
    assert_eq!(outcomes(&merged), outcomes(&whole));
    // Everything but timings and run ids is the same: metrics, thresholds, fixtures, trials.
    let stable = |r: &RunResults| {
        serde_json::to_string_pretty(&gatebench::run::baseline::baseline_of(r).unwrap()).unwrap()
    };
    let (m, w) = (stable(&merged), stable(&whole));
    let differing: Vec<(&str, &str)> = m.lines().zip(w.lines()).filter(|(a, b)| a != b).collect();
    assert_eq!(differing, [], "merged vs unsharded");
    assert_eq!(m, w);
    assert_eq!(merged.thresholds, whole.thresholds);
    assert_eq!(merged.exit_code, whole.exit_code);
    assert_eq!(merged.merged_from.len(), 3);
    assert!(merged.shard.is_none());
    let ids: Vec<String> = merged.fixtures.iter().map(|f| f.id.clone()).collect();
    let whole_ids: Vec<String> = whole.fixtures.iter().map(|f| f.id.clone()).collect();
    assert_eq!(ids, whole_ids);
}

#[test]
fn merge_refuses_a_missing_shard_and_a_duplicate_naming_the_files() {
    let reports = tempfile::tempdir().unwrap();
    let parts = shards("default.yaml", reports.path(), 3);
    let err = messages(merge::merge(parts[..2].to_vec(), SystemTime::now()).unwrap_err());
    assert!(err.contains("shard(s) 3/3 missing"), "{err}");
    assert!(err.contains(&parts[0].0.display().to_string()), "{err}");

    let mut twice = parts.clone();
    twice.push(parts[1].clone());
    let err = messages(merge::merge(twice, SystemTime::now()).unwrap_err());
    assert!(err.contains("shard 2/3 is given twice"), "{err}");
}

#[test]
fn merge_refuses_shards_of_another_scenario_or_pipeline_and_unsharded_runs() {
    let reports = tempfile::tempdir().unwrap();
    let mut parts = shards("default.yaml", reports.path(), 3);
    let legacy = shards("legacy.yaml", reports.path(), 3);
    parts[2] = legacy[2].clone();
    let err = messages(merge::merge(parts.clone(), SystemTime::now()).unwrap_err());
    assert!(err.contains("its scenario is `legacy`"), "{err}");
    assert!(err.contains("its pipeline fingerprint"), "{err}");
    assert!(err.contains(&legacy[2].0.display().to_string()), "{err}");

    let whole = bundled("default.yaml", reports.path(), &SUITE);
    parts[2] = (whole.dir.join("results.json"), whole.results);
    let err = messages(merge::merge(parts, SystemTime::now()).unwrap_err());
    assert!(err.contains("is not a shard"), "{err}");
}

#[test]
fn the_merge_command_writes_a_merged_run_and_exits_like_run() {
    let reports = tempfile::tempdir().unwrap();
    let parts = shards("legacy.yaml", reports.path(), 2);
    let merged_into = reports.path().join("merged");
    let args: Vec<String> = ["merge".to_owned()]
        .into_iter()
        .chain(
            parts
                .iter()
                .map(|(f, _)| f.parent().unwrap().display().to_string()),
        )
        .chain([
            "--reports-dir".to_owned(),
            merged_into.display().to_string(),
        ])
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = gatebench(&args, root());
    assert_eq!(
        out.code,
        gatebench::exit_code::THRESHOLDS,
        "{}{}",
        out.stdout,
        out.stderr
    );
    assert!(out.stdout.contains("merged 2 shards"), "{}", out.stdout);
    let run = gatebench::output::store::runs::newest(&merged_into).expect("a merged run folder");
    assert!(run.join("report.html").is_file());
    assert!(run.display().to_string().ends_with("-legacy-merged"));
    // The merged run has its trial logs as `run` writes them: one folder per trial.
    let mut merged = gatebench::output::store::runs::read(&run).unwrap();
    // Every object its trials reference is in its own store (linked from the shards' stores),
    // and each round kept its report.
    assert_eq!(
        merged.objects,
        Some(gatebench::output::store::objects::Store::new(
            run.join("objects")
        ))
    );
    merged.resolve().unwrap();
    assert!(merged
        .trials
        .iter()
        .all(|t| t.rounds.iter().all(|r| r.report.is_some())));
    let logs: Vec<_> = std::fs::read_dir(run.join("trials"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(logs.len(), merged.trials.len());
    assert!(logs.iter().all(|l| l.join("trial.json").is_file()));

    let out = gatebench(&args[..2], root());
    assert_eq!(out.code, gatebench::exit_code::USAGE, "{}", out.stderr);
    assert!(
        out.stderr.contains("shard(s) 2/2 missing"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_shard_is_given_as_i_of_n_and_a_bad_one_is_a_usage_error() {
    let out = gatebench(&["run", "--shard", "4/3", "--quiet"], root());
    assert_eq!(out.code, gatebench::exit_code::USAGE);
    assert!(
        out.stderr.contains("`4/3` is not a shard"),
        "{}",
        out.stderr
    );
}
