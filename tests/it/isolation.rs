//! Isolation and containment against misbehaving verifiers (tests/pipelines/): an answer-key
//! reader reads nothing and detects nothing with the sandbox on; a FIFO or a symbolic link as the
//! report, a FIFO and a big file left in the repository; no process outlives its round or a
//! killed gatebench; string commands' files in the cache key; a missing fixtures folder.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use gatebench::corpus::scenario::Scenario;
use gatebench::exit_code;
use gatebench::output::store::results::RunResults;
use gatebench::run::execute;
use gatebench::run::options::{Overrides, RunOptions};
use gatebench::score::outcome::Outcome;
use gatebench::score::record::TrialRecord;

const OMISSION: &str = "subscription-cancel-task-state-missing";
const GOLDEN: &str = "subscription-cancel";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn pipelines() -> PathBuf {
    root().join("tests/pipelines")
}

/// A scenario in `dir` running `script` (under tests/pipelines) with `extra` pipeline lines.
fn scenario(dir: &Path, script: &str, extra: &str, more: &str) -> Scenario {
    let text = format!(
        "name: t\nfixtures_dir: {}\npipeline:\n  kind: command\n  command: [sh, {}]\n  timeout_secs: 20\n{extra}\n{more}\n",
        root().join("fixtures").display(),
        pipelines().join(script).display()
    );
    let file = dir.join("scenario.yaml");
    std::fs::write(&file, text).unwrap();
    Scenario::load(&file).unwrap_or_else(|e| panic!("{e}"))
}

fn run(dir: &Path, script: &str, extra: &str, more: &str) -> RunResults {
    let s = scenario(dir, script, extra, more);
    let options = RunOptions::resolve(
        s,
        Overrides {
            filters: vec![OMISSION.into()],
            jobs: Some(2),
            reports_dir: Some(dir.join("reports")),
            ..Overrides::default()
        },
    );
    let mut results = execute::execute(&options, &|_, _, _| {})
        .unwrap_or_else(|e| panic!("{e:?}"))
        .results;
    results.resolve().unwrap();
    results
}

fn trial(results: &RunResults, fixture: &str) -> TrialRecord {
    results
        .trials
        .iter()
        .find(|t| t.fixture == fixture)
        .unwrap_or_else(|| panic!("no trial of {fixture}"))
        .into_owned()
}

fn landlock() -> bool {
    if gatebench_process::landlock_abi().is_none() {
        eprintln!("this kernel has no Landlock: the sandbox cannot be tested here");
        return false;
    }
    true
}

fn stderr_of(t: &TrialRecord) -> String {
    t.rounds[0].process.as_ref().unwrap().stderr.text.clone()
}

fn stdout_of(t: &TrialRecord) -> String {
    t.rounds[0].process.as_ref().unwrap().stdout.text.clone()
}

#[test]
fn an_answer_key_reader_reads_nothing_and_detects_nothing_with_the_sandbox_on() {
    if !landlock() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let reports = dir.path().join("reports");
    // A cache entry and a run folder the reader must not see: a first run writes both.
    let env = format!(
        "  env: {{ANSWER_KEYS: '{}', REPORTS: '{}'}}\n  sandbox: {{read: ['{}']}}",
        root().join("fixtures").display(),
        reports.display(),
        pipelines().display()
    );
    run(dir.path(), "answer-key-reader.sh", &env, "");
    let results = run(dir.path(), "answer-key-reader.sh", &env, "");
    assert_eq!(results.isolation.as_ref().unwrap().sandbox, "on");
    for t in &results.trials {
        assert!(
            stdout_of(&t).contains("answer files read: 0"),
            "{}: {}",
            t.fixture,
            stdout_of(&t)
        );
        assert!(
            stderr_of(&t).contains("Permission denied"),
            "{}",
            stderr_of(&t)
        );
    }
    // No better than an honest verifier: the omission goes undetected.
    assert_eq!(trial(&results, OMISSION).outcome, Outcome::FalsePass);
    assert_eq!(trial(&results, GOLDEN).outcome, Outcome::Passed);
    assert_eq!(results.metrics.overall.recall.map(|r| r.numerator), Some(0));

    // The control: with `sandbox: none` the same reader reads the answers (so the test can fail).
    let open = tempfile::tempdir().unwrap();
    let env_open = env.replace(
        &format!("  sandbox: {{read: ['{}']}}", pipelines().display()),
        "  sandbox: none",
    );
    let unsandboxed = run(open.path(), "answer-key-reader.sh", &env_open, "");
    assert_eq!(unsandboxed.isolation.as_ref().unwrap().sandbox, "none");
    // (It says FAIL, for the wrong reason: it never looked at the work.)
    assert!(
        matches!(
            trial(&unsandboxed, OMISSION).outcome,
            Outcome::Detected | Outcome::WrongReason
        ),
        "{:?}",
        trial(&unsandboxed, OMISSION).outcome
    );
    let text = gatebench::output::render::summary::terminal(&unsandboxed);
    assert!(text.contains("SANDBOX OFF"), "{text}");
}

#[test]
fn a_fifo_or_a_symbolic_link_as_the_report_is_an_error_not_a_hang() {
    for (script, reason) in [
        ("report-fifo.sh", "not a regular file"),
        ("report-symlink.sh", "symbolic link"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let extra = format!("  sandbox: {{read: ['{}']}}", pipelines().display());
        let results = run(dir.path(), script, &extra, "");
        for t in &results.trials {
            assert_eq!(t.outcome, Outcome::Error, "{script}: {}", t.reason);
            assert!(t.reason.contains(reason), "{script}: {}", t.reason);
        }
    }
}

#[test]
fn a_fifo_and_a_big_file_left_in_the_repository_are_changes_read_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let extra = format!(
        "  env: {{BIG_MIB: '512'}}\n  sandbox: {{read: ['{}']}}",
        pipelines().display()
    );
    let results = run(dir.path(), "leaves-fifo.sh", &extra, "");
    for t in &results.trials {
        assert_eq!(t.outcome, Outcome::Error, "{}", t.reason);
        assert!(
            t.modified_paths.contains(&"left-behind.fifo".to_owned())
                && t.modified_paths.contains(&"big.bin".to_owned()),
            "{:?}",
            t.modified_paths
        );
    }
    // Read whole, the two 512 MiB files would have taken this process past 512 MiB.
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let peak: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    assert!(peak < 400 * 1024, "peak RSS {peak} KiB");
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
fn no_verifier_outlives_a_killed_gatebench() {
    if gatebench_process::containment() != gatebench_process::Containment::PidNamespace {
        eprintln!("no PID namespace here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mark = format!("2000.{}", std::process::id());
    let text = format!(
        "name: t\nfixtures_dir: {}\npipeline:\n  kind: command\n  command: 'setsid sleep {mark} & sleep {mark}'\n",
        root().join("fixtures").display()
    );
    std::fs::write(dir.path().join("scenario.yaml"), text).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gatebench"))
        .args(["run", "scenario.yaml", "--quiet", "--filter", GOLDEN])
        .current_dir(dir.path())
        .spawn()
        .unwrap();
    let needle = format!("sleep {mark}");
    let started = Instant::now();
    // Two sleeps, and the `sh -c` whose command line holds them.
    while processes_with(&needle).len() < 3 && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        processes_with(&needle).len(),
        3,
        "the verifier did not start"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    // PDEATHSIG is delivered as gatebench dies; its delivery is asynchronous.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !processes_with(&needle).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(processes_with(&needle), Vec::<String>::new());
}

#[test]
fn a_string_commands_script_is_part_of_the_cache_key() {
    let dir = tempfile::tempdir().unwrap();
    let probe = dir.path().join("probe.sh");
    std::fs::write(
        &probe,
        format!(
            ". '{}/report.sh'\nwrite_report pass\n",
            pipelines().display()
        ),
    )
    .unwrap();
    let text = format!(
        "name: t\nfixtures_dir: {}\npipeline:\n  kind: command\n  command: 'sh \"$GATEBENCH_SCENARIO_DIR/probe.sh\"'\n  sandbox: {{read: ['{}']}}\n",
        root().join("fixtures").display(),
        pipelines().display()
    );
    std::fs::write(dir.path().join("scenario.yaml"), text).unwrap();
    let options = || {
        RunOptions::resolve(
            Scenario::load(&dir.path().join("scenario.yaml")).unwrap(),
            Overrides {
                filters: vec![OMISSION.into()],
                jobs: Some(2),
                reports_dir: Some(dir.path().join("reports")),
                ..Overrides::default()
            },
        )
    };
    let run = || {
        let mut results = execute::execute(&options(), &|_, _, _| {})
            .unwrap_or_else(|e| panic!("{e:?}"))
            .results;
        results.resolve().unwrap();
        results
    };
    let first = run();
    assert_eq!(trial(&first, OMISSION).outcome, Outcome::FalsePass);
    assert_eq!(run().cache.unwrap().hits, 2, "nothing changed: both reused");
    std::fs::write(&probe, "exit 1\n").unwrap();
    let after = run();
    assert_eq!(after.cache.unwrap().hits, 0, "the script changed");
    assert_eq!(trial(&after, OMISSION).outcome, Outcome::Error);
}

#[test]
fn a_scenario_whose_fixtures_folder_is_missing_is_exit_1_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("scenario.yaml"),
        "name: t\nfixtures_dir: no-such-folder\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gatebench"))
        .args(["run", "scenario.yaml", "--quiet"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(exit_code::USAGE), "{stderr}");
    assert!(stderr.contains("no-such-folder"), "{stderr}");
}
