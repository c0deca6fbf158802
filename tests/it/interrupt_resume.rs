//! Interrupts at any point: a run with a `command` pipeline (so the result cache is in play) gets
//! SIGINT or SIGTERM after a random delay, from before the first trial to while its outputs are
//! written; then it is resumed. At every point: the interrupted run leaves no staging folder, no
//! temporary repository, and either no run folder or a complete one; and the resumed run's
//! outcomes and commit ids equal an uninterrupted run's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use proptest::prelude::*;

/// How many interrupt points are tried.
const POINTS: u32 = 50;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A scenario next to the bundled fixtures: the minimal external verifier (which runs the
/// reference gate as a process) on one omission fixture and its golden.
fn scenario(dir: &Path) -> PathBuf {
    let file = dir.join("s.yaml");
    let fixtures = root().join("fixtures");
    let verifier = root().join("examples/minimal-verifier.sh");
    std::fs::write(
        &file,
        format!(
            "name: interrupt\nfixtures_dir: {}\nfixtures:\n  include: [orders-migration-code-ref-missing-file]\npipeline:\n  kind: command\n  command: [sh, {}]\n  timeout_secs: 60\n",
            fixtures.display(),
            verifier.display()
        ),
    )
    .unwrap();
    file
}

fn command(scenario: &Path, reports: &Path, work: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gatebench"));
    c.arg("run")
        .arg(scenario)
        .args(["--quiet", "--jobs", "1", "--trials", "2"])
        .arg("--reports-dir")
        .arg(reports)
        .arg("--work-dir")
        .arg(work)
        .env("GATEBENCH_BIN", env!("CARGO_BIN_EXE_gatebench"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

/// (fixture, trial) -> (outcome, commit ids) of the run folder's results.json.
type Summary = BTreeMap<(String, u64), (String, String)>;

fn summary(run: &Path) -> Summary {
    let text = std::fs::read_to_string(run.join("results.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["trials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                (
                    t["fixture"].as_str().unwrap().to_owned(),
                    t["trial"].as_u64().unwrap(),
                ),
                (t["outcome"].to_string(), t["commits"].to_string()),
            )
        })
        .collect()
}

/// The run folders under `reports` (not `.cache`); panics on anything partial.
fn run_folders(reports: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(reports) else {
        return Vec::new();
    };
    let mut runs = Vec::new();
    for e in entries {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name == ".cache" {
            continue;
        }
        assert!(
            !name.starts_with('.'),
            "a staging or temporary entry was left: {name}"
        );
        for file in gatebench::output::outputs::FILES {
            assert!(
                path.join(file).is_file(),
                "run folder {name} lacks {file}: it is half-written"
            );
        }
        let extra: Vec<String> = std::fs::read_dir(&path)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| {
                !gatebench::output::outputs::FILES.contains(&n.as_str())
                    && !gatebench::output::outputs::DIRS.contains(&n.as_str())
            })
            .filter(|n| n != gatebench::output::store::objects::DIR || !path.join(n).is_dir())
            .collect();
        assert!(extra.is_empty(), "run folder {name} holds {extra:?}");
        runs.push(path);
    }
    runs
}

fn no_temporary_left(work: &Path) {
    let left: Vec<_> = std::fs::read_dir(work)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "temporary repositories left: {left:?}");
}

/// The uninterrupted run: its summary, exit code and how long it took.
fn reference() -> &'static (Summary, Option<i32>, Duration) {
    static REF: std::sync::OnceLock<(Summary, Option<i32>, Duration)> = std::sync::OnceLock::new();
    REF.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let work = tmp.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        let s = scenario(tmp.path());
        let started = Instant::now();
        let out = command(&s, &tmp.path().join("reports"), &work)
            .output()
            .unwrap();
        let took = started.elapsed();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.contains("panicked") && !stderr.contains("error"),
            "{stderr}"
        );
        let runs = run_folders(&tmp.path().join("reports"));
        assert_eq!(runs.len(), 1);
        let summary = summary(&runs[0]);
        assert_eq!(summary.len(), 4, "two fixtures, two trials each");
        (summary, out.status.code(), took)
    })
}

fn interrupt_then_resume(fraction: f64, signal: i32) {
    let (want, want_code, took) = reference();
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let reports = tmp.path().join("reports");
    let s = scenario(tmp.path());

    // Up to 20% past the reference duration: some signals land while outputs are written, some
    // after the run ended.
    let delay = took.mul_f64(fraction * 1.2);
    let child = command(&s, &reports, &work).spawn().unwrap();
    std::thread::sleep(delay);
    // SAFETY: signalling a child this test started and has not reaped.
    unsafe { libc::kill(child.id() as i32, signal) };
    let out = child.wait_with_output().unwrap();
    let code = out.status.code();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    // A signal that lands before gatebench has installed its handler ends it the default way
    // (killed by that signal, which a shell reports as 128 + signal, like 130): nothing has been
    // written yet, which the checks below hold it to.
    let killed_by_it = std::os::unix::process::ExitStatusExt::signal(&out.status) == Some(signal);
    assert!(
        code == Some(130) || code == *want_code || killed_by_it,
        "exit {code:?}: {stderr}"
    );
    // One line per point (`--nocapture` shows them): how the run ended.
    eprintln!("point: signal {signal} after {:?}: exit {code:?}", delay);
    no_temporary_left(&work);
    // An interrupt that lands while the outputs are written waits for them (the handler takes
    // the outputs lock): the run folder is then complete, never partial (`run_folders` checks).
    let after_interrupt = run_folders(&reports);
    assert!(after_interrupt.len() <= 1, "{after_interrupt:?}");
    for run in &after_interrupt {
        assert_eq!(&summary(run), want, "the interrupted run's results differ");
    }

    // Resume into the same reports folder (and cache).
    let out = command(&s, &reports, &work).output().unwrap();
    assert_eq!(
        out.status.code(),
        *want_code,
        "resume: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    no_temporary_left(&work);
    let runs = run_folders(&reports);
    let resumed = runs
        .iter()
        .find(|r| !after_interrupt.contains(r))
        .expect("the resumed run's folder");
    assert_eq!(&summary(resumed), want, "resumed results differ");
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: POINTS,
        // A failing point is reported as is: shrinking would rerun real processes many times.
        max_shrink_iters: 0,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn interrupted_runs_resume_to_the_same_results(
        fraction in 0.0f64..1.0,
        term in any::<bool>(),
    ) {
        interrupt_then_resume(fraction, if term { libc::SIGTERM } else { libc::SIGINT });
    }
}
