//! The command pipeline against verifiers that misbehave on purpose (tests/pipelines/*.sh): each
//! must come to the outcome the protocol states (docs/GUIDE.md, "External pipelines"), never a pass. Also
//! the read-only check, the fixer loop, trials, the result cache (zero invocations on a re-run,
//! one fixture changed re-runs only it, an interrupted run resumes) and replay.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use gatebench::corpus::scenario::Scenario;
use gatebench::exit_code;
use gatebench::output::render::summary;
use gatebench::output::store::results::RunResults;
use gatebench::run::execute;
use gatebench::run::options::{Overrides, RunOptions};
use gatebench::score::outcome::Outcome;
use gatebench::score::record::TrialRecord;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn pipelines() -> PathBuf {
    root().join("tests/pipelines")
}

/// One omission fixture and its golden.
const OMISSION: &str = "subscription-cancel-task-state-missing";
const GOLDEN: &str = "subscription-cancel";

/// A scenario file in `dir` running `pipeline` (YAML lines under `pipeline:`), on the bundled
/// fixtures unless `fixtures` is given. Unless `pipeline` says otherwise, the sandbox is widened
/// to what these tests' verifiers need: the helper scripts and the gatebench binary (read), and
/// `dir` (their counters and pid files, written).
fn scenario(dir: &Path, pipeline: &str, more: &str, fixtures: Option<&Path>) -> Scenario {
    let fixtures = fixtures
        .map(Path::to_path_buf)
        .unwrap_or_else(|| root().join("fixtures"));
    // What the scripts write (a count of invocations) goes to `out/`: the scenario's folder
    // itself holds the reports and may hold the fixtures, which no sandbox may grant.
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let sandbox = if pipeline.contains("sandbox:") {
        String::new()
    } else {
        format!(
            "\n  sandbox: {{read: ['{}', '{}'], write: ['{}']}}",
            pipelines().display(),
            env!("CARGO_BIN_EXE_gatebench"),
            out.display()
        )
    };
    let pipeline = format!("{}{sandbox}", pipeline.trim_end());
    let text = format!(
        "name: t\nfixtures_dir: {}\npipeline:\n  kind: command\n{pipeline}\n{more}\n",
        fixtures.display()
    );
    let file = dir.join("scenario.yaml");
    std::fs::write(&file, text).unwrap();
    Scenario::load(&file).unwrap_or_else(|e| panic!("{e}"))
}

fn options(scenario: Scenario, reports: &Path, filters: &[&str], no_cache: bool) -> RunOptions {
    RunOptions::resolve(
        scenario,
        Overrides {
            filters: filters.iter().map(|s| s.to_string()).collect(),
            jobs: Some(2),
            reports_dir: Some(reports.to_path_buf()),
            no_cache,
            ..Overrides::default()
        },
    )
}

fn execute(options: &RunOptions) -> RunResults {
    let mut results = execute::execute(options, &|_, _, _| {})
        .unwrap_or_else(|e| panic!("{e:?}"))
        .results;
    results.resolve().unwrap();
    results
}

/// Runs `script` (under tests/pipelines) on the omission fixture and its golden.
fn run_script(script: &str, extra: &str, more: &str) -> RunResults {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = format!(
        "  command: [sh, {}]\n  timeout_secs: 20\n{extra}",
        pipelines().join(script).display()
    );
    let s = scenario(dir.path(), &pipeline, more, None);
    execute(&options(s, &dir.path().join("reports"), &[OMISSION], false))
}

fn trial(results: &RunResults, fixture: &str) -> TrialRecord {
    results
        .trials
        .iter()
        .find(|t| t.fixture == fixture)
        .unwrap_or_else(|| panic!("no trial of {fixture}"))
        .into_owned()
}

#[test]
fn a_verifier_that_always_passes_false_passes_the_omission_and_passes_the_golden() {
    let results = run_script("always-pass.sh", "", "");
    assert_eq!(trial(&results, OMISSION).outcome, Outcome::FalsePass);
    assert_eq!(trial(&results, GOLDEN).outcome, Outcome::Passed);
    assert_eq!(results.exit_code, exit_code::THRESHOLDS);
    assert!(!trial(&results, GOLDEN).modified_repo);
}

/// Every way of giving no usable answer, each an error with its reason, never a verdict.
#[test]
fn every_unusable_answer_is_an_error_with_its_reason() {
    let cases: [(&str, &str); 7] = [
        ("exit 1", "exited with 1 and wrote no report"),
        ("exit 0", "exited 0 but wrote no report"),
        (": > \"$GATEBENCH_REPORT\"", "the report is empty"),
        (
            "printf '{\"schemaVersion\": 1, \"status\": ' > \"$GATEBENCH_REPORT\"",
            "not valid JSON",
        ),
        (
            "echo '{\"schemaVersion\": 1, \"status\": \"ok\"}' > \"$GATEBENCH_REPORT\"",
            "does not match the report v1 schema",
        ),
        (
            ". \"$GB_PIPELINES/report.sh\"; SEVERITY=9 write_report pass 'a critical finding'",
            "critical severity",
        ),
        // `overall` given twice, the last a pass (was: scored as that pass, a false pass).
        (
            ". \"$GB_PIPELINES/report.sh\"; write_report issues-found 'a finding'; \
             sed -i 's/\"overall\": {\"result\": \"issues-found\"}/&, \"overall\": {\"result\": \"pass\"}/' \
             \"$GATEBENCH_REPORT\"",
            "gives the key `overall` twice",
        ),
    ];
    for (line, reason) in cases {
        let extra = format!("  env: {{GB_PIPELINES: '{}'}}\n", pipelines().display());
        let dir = tempfile::tempdir().unwrap();
        let pipeline = format!(
            "  command: '{}'\n  timeout_secs: 20\n{extra}",
            line.replace('\'', "''")
        );
        let s = scenario(dir.path(), &pipeline, "", None);
        let results = execute(&options(s, &dir.path().join("reports"), &[OMISSION], false));
        for t in &results.trials {
            assert_eq!(t.outcome, Outcome::Error, "`{line}`: {}", t.reason);
            assert!(t.reason.contains(reason), "`{line}`: {}", t.reason);
        }
        assert_eq!(results.exit_code, exit_code::ERRORS, "`{line}`");
    }
}

#[test]
fn a_verifier_that_cannot_be_started_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let s = scenario(
        dir.path(),
        "  command: [/nonexistent/gatebench-verifier]",
        "",
        None,
    );
    let results = execute(&options(s, &dir.path().join("reports"), &[OMISSION], false));
    let t = trial(&results, OMISSION);
    assert_eq!(t.outcome, Outcome::Error);
    assert!(t.reason.contains("could not be started"), "{}", t.reason);
}

#[test]
fn a_verifier_that_exits_1_keeps_what_it_printed_with_the_round() {
    let results = run_script("exit-1.sh", "", "");
    let t = trial(&results, OMISSION);
    assert_eq!(t.outcome, Outcome::Error);
    let process = t.rounds[0].process.as_ref().expect("a process record");
    assert_eq!(process.exit_code, Some(1));
    assert!(
        process.stderr.text.contains("verifier crashed"),
        "{process:?}"
    );
}

#[test]
fn a_verifier_that_hangs_is_a_timeout_and_its_trial_ends_soon_after() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = format!(
        "  command: [sh, {}]\n  timeout_secs: 1",
        pipelines().join("hang.sh").display()
    );
    let s = scenario(dir.path(), &pipeline, "", None);
    let started = Instant::now();
    let results = execute(&options(s, &dir.path().join("reports"), &[GOLDEN], false));
    let t = trial(&results, GOLDEN);
    assert_eq!(t.outcome, Outcome::Timeout, "{}", t.reason);
    let process = t.rounds[0].process.as_ref().unwrap();
    assert!(process.timed_out);
    // The protocol: timeout within the timeout plus one second. Generous bounds (a loaded CI
    // machine), far below the 1000 s the verifier would sleep.
    assert!(process.duration_ms < 2_000, "{} ms", process.duration_ms);
    assert!(t.duration_ms < 5_000, "{} ms", t.duration_ms);
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(results.exit_code, exit_code::ERRORS);
}

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
fn a_verifier_that_prints_a_gigabyte_is_captured_in_bounded_memory() {
    let bytes: u64 = 1 << 30;
    let results = run_script(
        "big-output.sh",
        &format!("  env: {{BYTES: '{bytes}'}}\n"),
        "",
    );
    let t = trial(&results, GOLDEN);
    assert_eq!(t.outcome, Outcome::Passed, "{}", t.reason);
    let out = &t.rounds[0].process.as_ref().unwrap().stdout;
    assert_eq!(out.total_bytes, bytes);
    assert!(out.truncated);
    assert!(
        out.text.len() < 3 * gatebench_process::CAPTURE_EDGE,
        "{}",
        out.text.len()
    );
    // Had the output been kept, this process would have held a gigabyte at some point.
    let peak = peak_rss_kib();
    assert!(peak < 512 * 1024, "peak RSS {peak} KiB");
}

#[test]
fn a_verifier_that_edits_the_repository_is_flagged_with_what_it_changed() {
    let results = run_script("edits-repo.sh", "", "");
    for t in &results.trials {
        assert!(t.modified_repo, "{}", t.fixture);
        assert!(
            t.modified_paths.contains(&"README.md".to_owned()),
            "{:?}",
            t.modified_paths
        );
        assert!(
            t.modified_paths.contains(&"VERIFIER-NOTES.txt".to_owned()),
            "{:?}",
            t.modified_paths
        );
    }
    assert_eq!(results.metrics.overall.modified_repo, 2);
    let text = summary::terminal(&results);
    assert!(
        text.contains("CHANGED THE REPOSITORY IT VERIFIED (2)"),
        "{text}"
    );
    assert!(summary::markdown(&results).contains("README.md"));
    // By default a verifier that changed what it judged has no answer worth scoring.
    for t in &results.trials {
        assert_eq!(t.outcome, Outcome::Error, "{}", t.fixture);
        assert!(
            t.reason.contains("modified the repository it verified"),
            "{}",
            t.reason
        );
    }
    // `on_modified: flag` keeps the old behaviour: the answer is scored, the change flagged.
    let flagged = run_script("edits-repo.sh", "", "on_modified: flag");
    assert_eq!(trial(&flagged, OMISSION).outcome, Outcome::FalsePass);
    assert_eq!(trial(&flagged, GOLDEN).outcome, Outcome::Passed);
    assert!(trial(&flagged, GOLDEN).modified_repo);
}

#[test]
fn the_builtin_gate_leaves_the_repository_it_verifies_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let s = Scenario::load(&root().join("scenarios/default.yaml")).unwrap();
    // The whole corpus, loop fixtures included: the verification loop writes only its git-ignored
    // state file, and a scripted fix never commits ignored files.
    let results = execute(&options(s, dir.path(), &[], false));
    assert!(results.trials.len() > 90);
    let modified: Vec<_> = results
        .trials
        .iter()
        .filter(|t| t.modified_repo)
        .map(|t| (t.fixture.clone(), t.modified_paths.clone()))
        .collect();
    assert!(modified.is_empty(), "{modified:?}");
}

/// The command lines of live processes (zombies excluded) that contain `needle`.
fn processes_with(needle: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            std::fs::read_to_string(e.path().join("stat")).is_ok_and(|s| {
                s.rsplit(')')
                    .next()
                    .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
            })
        })
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(needle))
        .collect()
}

#[test]
fn children_the_verifier_leaves_behind_even_setsid_and_double_forked_ones_are_gone() {
    // A number no other process's command line holds.
    let mark = format!("1000.{}", std::process::id());
    let results = run_script(
        "forks-child.sh",
        &format!("  env: {{MARK: '{mark}'}}\n"),
        "",
    );
    assert_eq!(trial(&results, GOLDEN).outcome, Outcome::Passed);
    let isolation = results.isolation.as_ref().unwrap();
    if isolation.containment != "pid-namespace" {
        eprintln!("no PID namespace here: only the process group is contained");
        return;
    }
    // The namespace's processes are killed before its init's exit completes: nothing to wait for.
    assert_eq!(
        processes_with(&format!("sleep {mark}")),
        Vec::<String>::new()
    );
}

#[test]
fn a_fixer_runs_between_rounds_with_the_last_report_and_its_changes_are_committed() {
    let p = pipelines();
    let extra = format!(
        "  fixer:\n    command: [sh, {}]\n    timeout_secs: 20\n",
        p.join("fixer-touch.sh").display()
    );
    let results = run_script("fails-until-fixed.sh", &extra, "max_rounds: 3");
    let t = trial(&results, GOLDEN);
    let verdicts: Vec<_> = t.rounds.iter().map(|r| r.verdict).collect();
    assert_eq!(
        verdicts,
        vec![
            Some(gatebench_report::Verdict::Fail),
            Some(gatebench_report::Verdict::Pass)
        ]
    );
    let first = &t.rounds[0];
    assert!(first.fix_error.is_none(), "{:?}", first.fix_error);
    assert_eq!(first.fixer.as_ref().unwrap().exit_code, Some(0));
    assert!(first.fix_commit.is_some());
    assert_eq!(t.commits.get("fix1"), first.fix_commit.as_ref());
    // What the fixer changed is kept: the file it created, as a diff against the tree before.
    let diff = first.fix_diff.as_deref().expect("the fixer's diff");
    assert!(diff.contains("--- /dev/null\n+++ b/FIXED\n"), "{diff}");
    assert!(diff.contains("+fixed\n"), "{diff}");
    assert_eq!(
        diff.matches("+++ ").count(),
        1,
        "only FIXED changed: {diff}"
    );
    assert!(
        t.rounds[1].fix_diff.is_none(),
        "no fixer ran after the passing round"
    );
    // The fixer's change is not the verifier's: the read-only check stays quiet.
    assert!(!t.modified_repo, "{:?}", t.modified_paths);
    // Cost: two verifier rounds (100 + 100 tokens in) and one fixer run (50).
    assert_eq!(t.cost.tokens_in.total, 250);
    assert_eq!(t.cost.tokens_in.unknown, 0);
    assert_eq!(t.cost.usd.known, 1);
    assert_eq!(t.cost.usd.unknown, 2);
    // The same fixer gives the same commit on every run: the harness commits deterministically.
    let again = run_script("fails-until-fixed.sh", &extra, "max_rounds: 3");
    assert_eq!(trial(&again, GOLDEN).commits, t.commits);
}

/// The external fixer's diff lands in the trial's log folder beside the round's report, as a
/// scripted fix's does.
#[test]
fn an_external_fixers_diff_is_in_the_trial_log() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = format!(
        "  command: [sh, {}]\n  timeout_secs: 20\n  fixer:\n    command: [sh, {}]\n    timeout_secs: 20\n",
        pipelines().join("fails-until-fixed.sh").display(),
        pipelines().join("fixer-touch.sh").display()
    );
    let s = scenario(dir.path(), &pipeline, "max_rounds: 3", None);
    let finished = execute::execute(
        &options(s, &dir.path().join("reports"), &[OMISSION], false),
        &|_, _, _| {},
    )
    .unwrap();
    let logs: Vec<PathBuf> = std::fs::read_dir(finished.dir.join("trials"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("round-1.fix.diff").is_file())
        .collect();
    // The verifier fails both repositories (the omission fixture and its golden) until FIXED
    // exists: both trials were fixed after round 1, and each log holds the fixer's diff.
    assert_eq!(logs.len(), 2, "{logs:?}");
    for log in &logs {
        let diff = std::fs::read_to_string(log.join("round-1.fix.diff")).unwrap();
        assert!(
            diff.contains("+++ b/FIXED\n") && diff.contains("+fixed\n"),
            "{diff}"
        );
    }
    // results.json keeps a reference, not the diff: the object store holds it.
    let text = std::fs::read_to_string(finished.dir.join("results.json")).unwrap();
    assert!(
        text.contains("\"fix_diff_ref\"") && !text.contains("+fixed"),
        "{text}"
    );
}

#[test]
fn a_fixture_detected_in_some_trials_only_is_flaky_and_fails_the_default_thresholds() {
    let dir = tempfile::tempdir().unwrap();
    // Trial 1 says PASS whatever; the other trials run the reference gate.
    let pipeline = format!(
        "  command: 'if [ \"$GATEBENCH_TRIAL\" = 1 ]; then sh {}; else sh {}; fi'\n  env: {{GB_BIN: '{}', COUNT_FILE: /dev/null}}",
        pipelines().join("always-pass.sh").display(),
        pipelines().join("counting-gate.sh").display(),
        env!("CARGO_BIN_EXE_gatebench")
    );
    let s = scenario(dir.path(), &pipeline, "trials: 3", None);
    let results = execute(&options(s, &dir.path().join("reports"), &[OMISSION], false));
    let repeat = results
        .metrics
        .overall
        .repeat
        .as_ref()
        .expect("repeat metrics");
    assert_eq!(repeat.k, 3);
    assert_eq!(repeat.flaky_fixtures, vec![OMISSION.to_owned()]);
    assert_eq!(
        (repeat.pass_hat_k.numerator, repeat.pass_hat_k.denominator),
        (1, 2)
    );
    assert_eq!(
        (repeat.pass_at_1.numerator, repeat.pass_at_1.denominator),
        (5, 6)
    );
    assert_eq!(
        (
            repeat.disagreement.numerator,
            repeat.disagreement.denominator
        ),
        (1, 2)
    );
    let flaky = results
        .thresholds
        .iter()
        .find(|t| t.name == "flaky fixtures")
        .unwrap();
    assert!(!flaky.met);
    assert_eq!(results.exit_code, exit_code::THRESHOLDS);
    assert!(summary::terminal(&results).contains("FLAKY"));
}

/// A copy of the omission fixture and its golden, to change.
fn copy_fixtures(to: &Path) {
    for id in [GOLDEN, OMISSION, "subscription-cancel-evidence-stale-tree"] {
        let status = Command::new("cp")
            .arg("-r")
            .arg(root().join("fixtures").join(id))
            .arg(to.join(id))
            .status()
            .unwrap();
        assert!(status.success());
    }
}

fn count(file: &Path) -> usize {
    std::fs::read_to_string(file).map_or(0, |s| s.lines().count())
}

fn counting_scenario(dir: &Path, fixtures: &Path, counter: &Path) -> Scenario {
    // The script is named relative to the scenario, so its content is part of the fingerprint.
    std::fs::copy(pipelines().join("counting-gate.sh"), dir.join("verify.sh")).unwrap();
    scenario(
        dir,
        &format!(
            "  command: [sh, ./verify.sh]\n  env: {{GB_BIN: '{}', COUNT_FILE: '{}'}}",
            env!("CARGO_BIN_EXE_gatebench"),
            counter.display()
        ),
        "",
        Some(fixtures),
    )
}

#[test]
fn a_rerun_with_nothing_changed_invokes_the_pipeline_zero_times_and_a_changed_fixture_reruns_alone()
{
    let dir = tempfile::tempdir().unwrap();
    let fixtures = dir.path().join("fixtures");
    std::fs::create_dir(&fixtures).unwrap();
    copy_fixtures(&fixtures);
    let counter = dir.path().join("out/count");
    let reports = dir.path().join("reports");
    let s = counting_scenario(dir.path(), &fixtures, &counter);

    let cold = execute(&options(s.clone(), &reports, &[], false));
    assert_eq!(cold.exit_code, 0, "{}", summary::terminal(&cold));
    let invoked = count(&counter);
    assert!(invoked >= 3, "{invoked}");
    assert_eq!(cold.cache.unwrap().misses, 3);

    let warm = execute(&options(s.clone(), &reports, &[], false));
    assert_eq!(count(&counter), invoked, "a re-run invoked the pipeline");
    assert_eq!(warm.cache.unwrap().hits, 3);
    let outcomes = |r: &RunResults| r.trials.iter().map(|t| t.outcome).collect::<Vec<_>>();
    assert_eq!(outcomes(&warm), outcomes(&cold));
    assert!(warm.trials.iter().all(|t| t.cached));

    // One fixture changes what it materializes: only its trial runs again.
    let yaml = fixtures.join(OMISSION).join("fixture.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    let changed = text.replace(
        "    - specs/subscription-cancel/task-states/T2.state.json\n",
        "    - specs/subscription-cancel/task-states/T2.state.json\n    - specs/subscription-cancel/task-states/T3.state.json\n",
    );
    assert_ne!(changed, text);
    std::fs::write(&yaml, changed).unwrap();
    let before = count(&counter);
    let partly = execute(&options(s.clone(), &reports, &[], false));
    // The verifier sees case ids only; the results map them back to fixtures.
    let ran: Vec<String> = std::fs::read_to_string(&counter)
        .unwrap()
        .lines()
        .skip(before)
        .map(|l| {
            partly
                .cases
                .get(l.split(" ").next().unwrap())
                .unwrap()
                .fixture
        })
        .collect();
    assert!(!ran.is_empty());
    assert!(ran.iter().all(|f| f == OMISSION), "{ran:?}");
    let stats = partly.cache.unwrap();
    assert_eq!((stats.hits, stats.misses), (2, 1));

    // --no-cache runs everything.
    let before = count(&counter);
    let forced = execute(&options(s, &reports, &[], true));
    assert!(count(&counter) >= before + 3);
    assert!(forced.trials.iter().all(|t| !t.cached));
}

#[test]
fn changing_the_verifier_script_invalidates_every_cached_trial() {
    let dir = tempfile::tempdir().unwrap();
    let counter = dir.path().join("out/count");
    let reports = dir.path().join("reports");
    let fixtures = dir.path().join("fixtures");
    std::fs::create_dir(&fixtures).unwrap();
    copy_fixtures(&fixtures);
    let s = counting_scenario(dir.path(), &fixtures, &counter);
    execute(&options(s.clone(), &reports, &[GOLDEN], false));
    let once = count(&counter);
    let script = dir.path().join("verify.sh");
    let mut text = std::fs::read_to_string(&script).unwrap();
    text.push_str("# changed\n");
    std::fs::write(&script, text).unwrap();
    let s = Scenario::load(&s.file).unwrap();
    let again = execute(&options(s, &reports, &[GOLDEN], false));
    assert_eq!(count(&counter), 2 * once);
    assert_eq!(again.cache.unwrap().hits, 0);
}

#[test]
fn replay_rescores_a_recorded_run_against_changed_expectations_without_invoking_the_pipeline() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = dir.path().join("fixtures");
    std::fs::create_dir(&fixtures).unwrap();
    copy_fixtures(&fixtures);
    let counter = dir.path().join("out/count");
    let reports = dir.path().join("reports");
    let s = counting_scenario(dir.path(), &fixtures, &counter);
    let recorded = execute::execute(&options(s, &reports, &[], false), &|_, _, _| {}).unwrap();
    assert_eq!(
        trial(&recorded.results, OMISSION).outcome,
        Outcome::Detected
    );
    let invoked = count(&counter);

    // The expectation changes (not what is materialized): the locus moves where the recorded
    // report points at nothing, so it no longer localizes the omission.
    let yaml = fixtures.join(OMISSION).join("fixture.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    let start = text.find("  locus:\n").unwrap();
    let end = text.find("  findings:\n").unwrap();
    let moved = format!(
        "{}  locus:\n    - path: src/subscription/api.py\n{}",
        &text[..start],
        &text[end..]
    );
    std::fs::write(&yaml, moved).unwrap();
    let replayed = gatebench::run::replay::replay(&gatebench::run::replay::ReplayOptions {
        recorded: recorded.dir.clone(),
        fixtures_dir: Some(fixtures.clone()),
        reports_dir: reports.clone(),
    })
    .unwrap();
    assert_eq!(count(&counter), invoked, "replay invoked the pipeline");
    let r = &replayed.results;
    assert_eq!(
        r.replay_of.as_deref(),
        Some(recorded.results.run_id.as_str())
    );
    assert_eq!(
        trial(r, OMISSION).outcome,
        Outcome::WrongReason,
        "{}",
        trial(r, OMISSION).reason
    );
    assert_eq!(trial(r, GOLDEN).outcome, Outcome::Passed);
    assert!(replayed.dir.join("results.json").is_file());
    // The replay holds references only, and its own store has every object they name.
    assert!(r
        .trials
        .iter()
        .all(|t| t.rounds.iter().all(|r| r.report.is_none())));
    let mut stored = gatebench::output::store::runs::read(&replayed.dir).unwrap();
    stored.resolve().unwrap();
    assert!(stored
        .trials
        .iter()
        .all(|t| t.rounds.iter().all(|r| r.report.is_some())));

    // A fixture that now materializes something else cannot be re-scored from old reports.
    let text = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(
        &yaml,
        text.replace(
            "    - specs/subscription-cancel/task-states/T2.state.json\n",
            "    - specs/subscription-cancel/task-states/T2.state.json\n    - specs/subscription-cancel/task-states/T3.state.json\n",
        ),
    )
    .unwrap();
    let replayed = gatebench::run::replay::replay(&gatebench::run::replay::ReplayOptions {
        recorded: recorded.dir,
        fixtures_dir: Some(fixtures),
        reports_dir: reports,
    })
    .unwrap();
    let t = trial(&replayed.results, OMISSION);
    assert_eq!(t.outcome, Outcome::Error);
    assert!(t.reason.contains("different repository"), "{}", t.reason);
    assert_eq!(count(&counter), invoked);
}

#[test]
fn an_interrupted_run_resumes_with_the_trials_it_finished() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = dir.path().join("fixtures");
    std::fs::create_dir(&fixtures).unwrap();
    copy_fixtures(&fixtures);
    let counter = dir.path().join("out/count");
    // The second invocation waits to be killed; the test interrupts gatebench then, as Ctrl-C
    // would. (The verifier cannot signal gatebench itself: it runs in a PID namespace of its own.)
    let script = dir.path().join("verify.sh");
    std::fs::write(
        &script,
        format!(
            "echo \"$GATEBENCH_CASE\" >> '{c}'\nif [ \"$(wc -l < '{c}')\" -eq 2 ]; then sleep 30; fi\nexec \"$GB_BIN\" gate --base \"$GATEBENCH_BASE\" --format json --output \"$GATEBENCH_REPORT\" .\n",
            c = counter.display()
        ),
    )
    .unwrap();
    let text = format!(
        "name: t\nfixtures_dir: {}\npipeline:\n  kind: command\n  command: [sh, ./verify.sh]\n  env: {{GB_BIN: '{}'}}\n  sandbox: {{write: ['{}']}}\n",
        fixtures.display(),
        env!("CARGO_BIN_EXE_gatebench"),
        dir.path().join("out").display()
    );
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    std::fs::write(dir.path().join("scenario.yaml"), text).unwrap();
    let gatebench = |dir: &Path, interrupt_at: Option<usize>| {
        let started = Instant::now();
        let child = Command::new(env!("CARGO_BIN_EXE_gatebench"))
            .args([
                "run",
                "scenario.yaml",
                "--quiet",
                "--jobs",
                "1",
                "--reports-dir",
                "reports",
            ])
            .current_dir(dir)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        if let Some(n) = interrupt_at {
            while count(&counter) < n && started.elapsed() < Duration::from_secs(60) {
                std::thread::sleep(Duration::from_millis(20));
            }
            // SAFETY: kill on the pid of a child this test started and has not reaped.
            unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        }
        let out = child.wait_with_output().unwrap();
        (out, started.elapsed())
    };
    let (first, took) = gatebench(dir.path(), Some(2));
    assert_eq!(
        first.status.code(),
        Some(exit_code::INTERRUPTED),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(
        took < Duration::from_secs(25),
        "the interrupted verifier was not killed: {took:?}"
    );
    assert_eq!(count(&counter), 2);
    let (second, _) = gatebench(dir.path(), None);
    let stdout = String::from_utf8_lossy(&second.stdout);
    assert_eq!(second.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("cache: 1 trial(s) reused, 2 run"),
        "{stdout}"
    );
    // The finished trial was not run again: one invocation per remaining fixture.
    assert_eq!(count(&counter), 4);
}

#[test]
fn the_example_verifiers_score_as_documented() {
    let reports = tempfile::tempdir().unwrap();
    let run = |scenario: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_gatebench"))
            .args([
                "run",
                scenario,
                "--quiet",
                "--no-cache",
                "--filter",
                OMISSION,
            ])
            .arg("--reports-dir")
            .arg(reports.path())
            .current_dir(root())
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, stdout) = run("scenarios/external-minimal.yaml");
    assert_eq!(code, Some(0), "{stdout}");
    let (code, stdout) = run("scenarios/external-trusts-pass-text.yaml");
    assert_eq!(code, Some(exit_code::THRESHOLDS), "{stdout}");
    assert!(stdout.contains("FALSE PASSES (1)"), "{stdout}");
    // The agent scenario is not run here (it needs an agent), but it must be a valid scenario.
    Scenario::load(&root().join("examples/agent-verify-skill.yaml")).unwrap();
}

/// `retries: N` re-runs a trial that ended in `error` or `timeout`, and records every attempt;
/// a verdict, even a false pass, is never retried into another.
#[test]
fn retries_rerun_errors_only_and_record_every_attempt_and_never_retry_a_false_pass() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = format!(
        "  command: [sh, {}]\n  timeout_secs: 20\n  env: {{SEEN_DIR: '{}'}}\n",
        pipelines().join("error-once.sh").display(),
        dir.path().join("out").display()
    );
    let s = scenario(dir.path(), &pipeline, "retries: 2", None);
    let results = execute(&options(s, &dir.path().join("reports"), &[OMISSION], true));
    // Each case errored once, then said PASS: the golden passes, the omission is a false pass
    // that no further retry touched (two attempts, not three).
    for (fixture, outcome) in [(GOLDEN, Outcome::Passed), (OMISSION, Outcome::FalsePass)] {
        let t = trial(&results, fixture);
        assert_eq!(t.outcome, outcome, "{fixture}");
        assert!(t.retried, "{fixture}");
        let outcomes: Vec<Outcome> = t.attempts.iter().map(|a| a.outcome).collect();
        assert_eq!(outcomes, vec![Outcome::Error, outcome], "{fixture}");
        assert!(
            t.attempts[0].reason.contains("exited with 1"),
            "{}",
            t.attempts[0].reason
        );
    }
    let summary = summary::terminal(&results);
    assert!(
        summary.contains(
            "retries: 2 trial(s) needed a retry (2 re-run(s) after an error or timeout); 0 still \
             ended in error or timeout"
        ),
        "{summary}"
    );

    // A false pass from the first attempt is final: one attempt, not retried.
    let results = run_script("always-pass.sh", "", "retries: 2");
    let t = trial(&results, OMISSION);
    assert_eq!(t.outcome, Outcome::FalsePass);
    assert!(!t.retried);
    assert_eq!(t.attempts.len(), 1);

    // An error every time (`--retries` overrides the scenario's 0): 1 + 2 attempts, all
    // recorded, still an error.
    let dir = tempfile::tempdir().unwrap();
    let pipeline = format!(
        "  command: [sh, {}]\n  timeout_secs: 20\n",
        pipelines().join("exit-1.sh").display()
    );
    let s = scenario(dir.path(), &pipeline, "", None);
    let reports = dir.path().join("reports");
    let mut o = options(s, &reports, &[OMISSION], true);
    o.retries = 2;
    let results = execute(&o);
    let t = trial(&results, OMISSION);
    assert_eq!(t.outcome, Outcome::Error);
    assert!(t.retried);
    assert_eq!(t.attempts.len(), 3);
    assert!(t.attempts.iter().all(|a| a.outcome == Outcome::Error));
    assert!(summary::terminal(&results).contains("2 still ended in error or timeout"));
    // Its trial log: the verifier's output per round, and the attempts in trial.json.
    let case = results
        .cases
        .iter()
        .find(|(_, c)| c.fixture == OMISSION)
        .map(|(case, _)| case.clone())
        .unwrap();
    let log = reports.join(&results.run_id).join("trials").join(&case);
    let stderr = std::fs::read_to_string(log.join("round-1.stderr")).unwrap();
    assert_eq!(stderr.trim(), "verifier crashed");
    assert!(log.join("round-1.stdout").is_file());
    assert!(
        !log.join("round-1.report.json").exists(),
        "no report was written"
    );
    let facts: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(log.join("trial.json")).unwrap()).unwrap();
    assert_eq!(facts["attempts"].as_array().unwrap().len(), 3);
    assert_eq!(facts["retried"], true);
    assert_eq!(facts["rounds"][0]["process"]["status"], "exited with 1");
    assert!(facts["isolation"]["sandbox"].is_string(), "{facts}");
}

// Round 2 (issue 46): outputs and reads

/// The fixer's `$GATEBENCH_FIX_COST` file is read as the report is (`gatebench::input`): a FIFO
/// (was: the run hung forever), a link to `/dev/zero` (was: read until memory ran out), a link to a
/// file outside the sandbox or a folder on the way replaced by one (was: followed and read), and a
/// file over the bound are each the fixer's error, named, and the run ends.
#[test]
fn a_fixers_cost_file_is_read_as_the_report_is() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("cost.json"), r#"{"tokensIn": 7}"#).unwrap();
    let cases = [
        ("mkfifo \"$GATEBENCH_FIX_COST\"", "not a regular file"),
        ("ln -s /dev/zero \"$GATEBENCH_FIX_COST\"", "symbolic link"),
        (
            &*format!(
                "ln -s {} \"$GATEBENCH_FIX_COST\"",
                outside.path().join("cost.json").display()
            ),
            "symbolic link",
        ),
        (
            &*format!(
                "d=$(dirname \"$GATEBENCH_FIX_COST\"); rm -rf \"$d\"; ln -s {} \"$d\"",
                outside.path().display()
            ),
            "symbolic link",
        ),
        (
            "head -c 200000 /dev/zero | tr '\\0' ' ' > \"$GATEBENCH_FIX_COST\"",
            "the limit is 65536 bytes",
        ),
    ];
    for (line, reason) in cases {
        let dir = tempfile::tempdir().unwrap();
        let fixer = format!("echo fixed > FIXED; {line}; exit 0").replace('\'', "''");
        let pipeline = format!(
            "  command: [sh, {}]\n  timeout_secs: 20\n  fixer:\n    command: '{fixer}'\n    timeout_secs: 20\n",
            pipelines().join("fails-until-fixed.sh").display(),
        );
        let s = scenario(dir.path(), &pipeline, "max_rounds: 3", None);
        let started = Instant::now();
        let results = execute(&options(s, &dir.path().join("reports"), &[GOLDEN], false));
        assert!(started.elapsed() < Duration::from_secs(60), "`{line}`");
        let t = trial(&results, GOLDEN);
        let error = t.rounds[0].fix_error.as_deref().unwrap_or_default();
        assert!(
            error.contains("$GATEBENCH_FIX_COST file was not read") && error.contains(reason),
            "`{line}`: {error:?}"
        );
        assert!(t.rounds[0].fix_cost.is_none(), "`{line}`");
    }
}

/// A fixer that leaves a file over the largest a fixture holds (here a sparse 2 GiB one: was an
/// abort of the whole run, exit 134; 8 GiB with `autocrlf` was a SIGSEGV) makes its trial an error
/// naming the file; nothing of it is read.
#[test]
fn a_fixers_oversized_file_is_the_trials_error_not_an_abort() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = format!(
        "  command: [sh, {}]\n  timeout_secs: 20\n  fixer:\n    command: 'echo fixed > FIXED; truncate -s 2G big.bin'\n    timeout_secs: 20\n",
        pipelines().join("fails-until-fixed.sh").display(),
    );
    let s = scenario(dir.path(), &pipeline, "max_rounds: 3", None);
    let results = execute(&options(s, &dir.path().join("reports"), &[GOLDEN], false));
    let t = trial(&results, GOLDEN);
    assert_eq!(t.outcome, Outcome::Error, "{}", t.reason);
    assert!(
        t.reason
            .contains("`big.bin` of 2147483648 bytes, over the limit"),
        "{}",
        t.reason
    );
}
