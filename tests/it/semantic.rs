//! The semantic tier (issue 41): ground truth by execution on a tiny golden written here (a
//! `clamp` function and its pytest tests), the validation cache (a second validation executes no
//! test command), the record planted as fixtures of tier `semantic` and refused once stale, the
//! bad inputs (a suite that fails or hangs at baseline, a missing program), and the bundled record:
//! current, and as large and as varied as the issue asks; the hand-written semantic fixtures, each
//! proved by running its golden's suite, and one declared silent whose suite fails refused.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use gatebench::corpus;
use gatebench::corpus::scenario::MutantSelection;
use gatebench::corpus::taxonomy::{Signal, Tier};
use gatebench::mutate::generate;
use gatebench::mutate::semantic::handwritten;
use gatebench::mutate::semantic::record::{Record, Status};
use gatebench::mutate::semantic::runs::Runs;
use gatebench::mutate::semantic::validate;

use crate::common;

const CALC: &str = "\"\"\"Numbers kept in range.\"\"\"


def clamp(value, low, high):
    if value < low:
        return low
    if value > high:
        return high
    return value
";

const TESTS: &str = "from calc import clamp


def test_values_inside_are_kept():
    assert clamp(5, 0, 10) == 5


def test_values_below_are_raised():
    assert clamp(-3, 0, 10) == 0
    assert clamp(0, 0, 10) == 0


def test_values_above_are_lowered():
    assert clamp(12, 0, 10) == 10
";

const REQUIREMENTS: &str = r#"{
  "schema_version": 1,
  "requirements": [
    {
      "id": "REQ-001",
      "title": "Clamp a value",
      "obligations": [
        {
          "id": "REQ-001-B01",
          "code_refs": ["calc.py:4-9"],
          "test_refs": [
            "tests/test_calc.py::test_values_inside_are_kept",
            "tests/test_calc.py::test_values_below_are_raised",
            "tests/test_calc.py::test_values_above_are_lowered"
          ]
        }
      ]
    }
  ]
}
"#;

/// A fixtures folder holding one golden, `clamp` (its code `calc`), whose suite is `command`.
fn golden_with(dir: &Path, calc: &str, command: &str, timeout: u64) -> PathBuf {
    let fixtures = dir.join("fixtures");
    let root = fixtures.join("clamp");
    let write = |path: &str, text: &str| {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "fixture.yaml",
        &format!(
            "id: clamp\ndescription: A clamp function and its tests.\ncategory: golden\n\
             base: base\nhead:\n  overlay: head\nsuite:\n  command: {command}\n  \
             timeout_seconds: {timeout}\nexpect:\n  verdict: pass\n"
        ),
    );
    write("base/README.md", "# clamp\n");
    write("head/calc.py", calc);
    write("head/tests/test_calc.py", TESTS);
    write("head/specs/clamp/requirements.json", REQUIREMENTS);
    fixtures
}

fn golden(dir: &Path, command: &str, timeout: u64) -> PathBuf {
    golden_with(dir, CALC, command, timeout)
}

const PYTEST: &str = "/usr/bin/python3 -m pytest -v -p no:cacheprovider";

#[test]
fn validation_proves_each_mutant_by_running_the_suite_and_a_warm_cache_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = golden(dir.path(), PYTEST, 60);
    let corpus = corpus::load(&fixtures).unwrap_or_else(|e| panic!("{e:?}"));
    let cache = dir.path().join("cache");
    let cold = Runs::new(Some(cache.clone()));
    let (record, _) = validate::validate(&corpus, &[], &cold, &|_, _, _| {}).unwrap();
    assert!(cold.executed.load(Ordering::Relaxed) > 10);
    let status = |id: &str| record.get(id).unwrap_or_else(|| panic!("no {id}")).status;
    // A stub fails every test; a dropped guard fails the test of that side.
    assert_eq!(status("clamp--stub-raise--calc-clamp"), Status::Loud);
    assert_eq!(status("clamp--drop-guard--calc-clamp"), Status::Loud);
    // A skipped test hides the stub that the original test killed: proved, and silent.
    let skipped = record
        .mutants
        .iter()
        .find(|m| m.operator == "skip-test")
        .expect("a skip-test mutant");
    assert_eq!(skipped.status, Status::Silent, "{skipped:?}");
    let proof = skipped
        .with
        .as_deref()
        .expect("the code mutant that proves it");
    assert_eq!(record.get(proof).unwrap().status, Status::Loud);
    // Every loud entry's evidence is a failing run; every silent one's own run is green.
    for m in &record.mutants {
        let own = m.runs.iter().find(|r| r.role == "mutant").unwrap();
        match m.status {
            Status::Loud => assert!(own.exit_code != Some(0) && !own.failing.is_empty(), "{m:?}"),
            Status::Silent => assert!(own.exit_code == Some(0) && own.failing.is_empty(), "{m:?}"),
            _ => {}
        }
    }
    assert!(record
        .mutants
        .iter()
        .any(|m| m.operator == "lying-agent" && m.status == Status::Silent));

    // The same validation again, warm: the same record, and no test command executed.
    let warm = Runs::new(Some(cache));
    let (again, _) = validate::validate(&corpus, &[], &warm, &|_, _, _| {}).unwrap();
    assert_eq!(warm.executed.load(Ordering::Relaxed), 0);
    assert!(warm.cached.load(Ordering::Relaxed) > 10);
    assert_eq!(again, record);

    // Planted: every loud and silent entry a semantic fixture; the rest unviable with a reason.
    record.write(&fixtures).unwrap();
    let selection = MutantSelection {
        tier: Tier::Semantic,
        ..MutantSelection::default()
    };
    let mutants = generate::generate(&corpus, &selection).unwrap();
    assert_eq!(mutants.len(), record.mutants.len());
    for m in &mutants {
        let entry = record.get(&m.id).unwrap();
        match &m.fixture {
            Ok(f) => {
                assert!(entry.status.planted());
                assert_eq!(f.tier, Tier::Semantic);
                let signal = if entry.status == Status::Loud {
                    Signal::Loud
                } else {
                    Signal::Silent
                };
                assert_eq!(f.signal, Some(signal));
                assert!(f
                    .expect
                    .locus
                    .iter()
                    .any(|l| l.obligation.as_deref() == Some("REQ-001-B01")));
            }
            Err(why) => {
                assert!(!entry.status.planted());
                assert!(why.starts_with(entry.status.as_str()), "{why}");
            }
        }
    }

    // A golden file changed since: the record is stale, and says how to refresh it.
    std::fs::write(
        fixtures.join("clamp/head/calc.py"),
        CALC.replace("return value", "return value  # kept"),
    )
    .unwrap();
    let changed = corpus::load(&fixtures).unwrap_or_else(|e| panic!("{e:?}"));
    let stale = match generate::generate(&changed, &selection) {
        Ok(_) => panic!("a stale record was planted"),
        Err(e) => e.to_string(),
    };
    assert!(
        stale.contains("is stale") && stale.contains("gatebench mutate --validate"),
        "{stale}"
    );
}

#[test]
fn a_suite_that_fails_hangs_or_cannot_start_at_baseline_plants_nothing() {
    // A golden whose code is wrong: its own suite fails.
    let wrong = CALC.replace("return high", "return low");
    for (calc, command, timeout, expect) in [
        (
            wrong.as_str(),
            PYTEST,
            60,
            "does not pass on the golden (baseline)",
        ),
        (
            CALC,
            "/usr/bin/python3 -c 'import time; time.sleep(30)'",
            1,
            "timed out",
        ),
        (
            CALC,
            "gatebench-no-such-program --run",
            60,
            "gatebench-no-such-program",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let fixtures = golden_with(dir.path(), calc, command, timeout);
        let corpus = corpus::load(&fixtures).unwrap_or_else(|e| panic!("{e:?}"));
        let runs = Runs::new(None);
        let started = std::time::Instant::now();
        let error = validate::validate(&corpus, &[], &runs, &|_, _, _| {})
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(error.contains(expect), "{command}: {error}");
        assert!(error.contains("clamp"), "{error}");
        assert!(
            started.elapsed().as_secs() < 20,
            "{command} was not stopped at its timeout"
        );
        assert!(Record::load(&fixtures).unwrap().is_none());
    }
}

/// The committed record against the bundled goldens, with nothing run: every candidate's key is
/// current, and the tier is as large and varied as issue 41 asks.
#[test]
fn the_bundled_semantic_tier_is_current_large_and_varied() {
    let fixtures = common::root().join("fixtures");
    let corpus = corpus::load(&fixtures).unwrap_or_else(|e| panic!("{e:?}"));
    let selection = MutantSelection {
        tier: Tier::Semantic,
        ..MutantSelection::default()
    };
    let mutants = generate::generate(&corpus, &selection).unwrap_or_else(|e| {
        panic!("{e}\n(the record is refreshed by `cargo run --release -- mutate --validate`)")
    });
    let planted: Vec<_> = mutants
        .iter()
        .filter_map(|m| m.fixture.as_ref().ok())
        .collect();
    let silent = planted
        .iter()
        .filter(|f| f.signal == Some(Signal::Silent))
        .count();
    let operators: std::collections::BTreeSet<&str> = mutants
        .iter()
        .filter(|m| m.fixture.is_ok())
        .map(|m| m.operator)
        .collect();
    // The languages of the files the planted mutants change.
    let languages: std::collections::BTreeSet<String> = planted
        .iter()
        .flat_map(|f| f.expect.locus.iter())
        .filter_map(|l| {
            l.path
                .as_deref()?
                .rsplit_once('.')
                .map(|(_, ext)| ext.to_owned())
        })
        .collect();
    assert!(planted.len() >= 300, "{} planted", planted.len());
    assert!(
        silent * 3 >= planted.len(),
        "{silent} of {} silent",
        planted.len()
    );
    assert!(operators.len() >= 14, "{operators:?}");
    for ext in ["py", "js", "rs"] {
        assert!(
            languages.contains(ext),
            "no planted mutant changes a .{ext} file: {languages:?}"
        );
    }
}

/// The "tests pass" gate (examples/tests-pass.sh) on one golden's loud and silent mutants: it
/// passes the golden, catches the loud mutant (its suite fails) and passes the silent one (its
/// suite is green): a false pass by construction, which is what the tier is for.
#[test]
fn the_tests_pass_gate_catches_loud_mutants_and_passes_silent_ones() {
    let fixtures = common::root().join("fixtures");
    let record = Record::load(&fixtures)
        .unwrap()
        .expect("the bundled record");
    let pick = |status: Status| {
        record
            .mutants
            .iter()
            .find(|m| m.golden == "subscription-cancel" && m.status == status)
            .map(|m| m.id.clone())
            .expect("a mutant of that status")
    };
    let (loud, silent) = (pick(Status::Loud), pick(Status::Silent));
    let dir = tempfile::tempdir().unwrap();
    // A command the scenario names beside it is granted to the sandbox.
    std::fs::copy(
        common::root().join("examples/tests-pass.sh"),
        dir.path().join("tests-pass.sh"),
    )
    .unwrap();
    let scenario = common::scenario(
        dir.path(),
        "tests-pass-semantic",
        &format!(
            "fixtures:\n  include: [\"{loud}\", \"{silent}\"]\nmutants:\n  tier: semantic\n  \
             goldens: [subscription-cancel]\npipeline:\n  kind: command\n  \
             command: [sh, ./tests-pass.sh]\n  timeout_secs: 120\n  network: none\nmax_rounds: 3\n"
        ),
    );
    let finished = common::execute(&common::options(
        &scenario,
        &dir.path().join("reports"),
        &[],
    ));
    let outcomes: std::collections::BTreeMap<String, &str> = finished
        .results
        .trials
        .iter()
        .map(|t| (t.fixture.clone(), t.outcome.as_str()))
        .collect();
    assert_eq!(
        outcomes.get("subscription-cancel"),
        Some(&"passed"),
        "{outcomes:?}"
    );
    assert_eq!(outcomes.get(&silent), Some(&"false-pass"), "{outcomes:?}");
    // Caught: its finding names no locus, so it is caught for no stated reason.
    assert!(
        matches!(outcomes.get(&loud), Some(&"detected" | &"wrong-reason")),
        "{outcomes:?}"
    );
}

/// Every bundled golden declares its test suite, and it passes on the golden in the sandbox:
/// what every semantic mutant's ground truth starts from (the validation's baseline).
#[test]
fn every_bundled_golden_suite_passes_in_the_sandbox() {
    let fixtures = common::root().join("fixtures");
    let corpus = corpus::load(&fixtures).unwrap_or_else(|e| panic!("{e:?}"));
    let goldens: Vec<_> = corpus.fixtures.iter().filter(|f| f.is_golden()).collect();
    assert_eq!(goldens.len(), 6);
    let runs = Runs::new(None);
    for golden in goldens {
        let suite = validate::Suite::of(golden).unwrap_or_else(|e| panic!("{e}"));
        let files = golden.in_memory().unwrap().final_files().clone();
        let run = runs.run(&files, &suite.command, &suite.toolchain, suite.declared);
        assert!(run.green(), "{}: {}", golden.id, run.summary());
        assert!(run.passed.len() >= 7, "{}: {:?}", golden.id, run.passed);
    }
}

/// `explain` on a semantic mutant shows how its ground truth was proved.
#[test]
fn explain_shows_a_semantic_mutants_evidence() {
    let record = Record::load(&common::root().join("fixtures"))
        .unwrap()
        .unwrap();
    let silent = record
        .mutants
        .iter()
        .find(|m| m.status == Status::Silent && m.operator == "skip-test")
        .expect("a silent skip-test mutant");
    let out = common::gatebench(
        &["explain", &silent.id, "--reports-dir", "/nonexistent"],
        common::root(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("proved by running the golden's suite: silent"),
        "{}",
        out.stdout
    );
    let with = silent.with.as_deref().unwrap();
    assert!(
        out.stdout.contains(&format!("with the code mutant {with}")),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("not run (skipped, xfail, todo)"),
        "{}",
        out.stdout
    );
}

/// The hand-written semantic fixtures (`fixtures/<golden>-semantic-*`): each one's declared signal
/// holds when its golden's suite runs on it, and each test change lets through a code mutant that
/// the golden's tests kill. One per operator family, over every golden and language.
#[test]
fn every_hand_written_semantic_fixture_is_proved_by_running_its_suite() {
    let fixtures = common::root().join("fixtures");
    let corpus = corpus::load(&fixtures).unwrap_or_else(|e| panic!("{e:?}"));
    let record = Record::load(&fixtures)
        .unwrap()
        .expect("the bundled record");
    let runs = Runs::new(None);
    let hand: Vec<_> = corpus
        .fixtures
        .iter()
        .filter(|f| f.tier == Tier::Semantic)
        .collect();
    assert!(
        hand.len() >= 12,
        "{} hand-written semantic fixtures",
        hand.len()
    );
    let mut proofs = Vec::new();
    let mut failed = Vec::new();
    for f in &hand {
        assert!(f.id.contains("-semantic-"), "{}", f.id);
        match handwritten::prove(&corpus, Some(&record), f, &runs) {
            Ok(p) => proofs.push(p),
            Err(e) => failed.push(e.to_string()),
        }
    }
    assert!(failed.is_empty(), "not proved:\n{}", failed.join("\n"));
    assert_eq!(proofs.len(), hand.len());
    for (f, p) in hand.iter().zip(&proofs) {
        assert_eq!(p.fixture, f.id);
        match p.signal {
            Signal::Loud => assert!(
                p.observed.killed(),
                "{}: {}",
                p.fixture,
                p.observed.summary()
            ),
            Signal::Silent => assert!(
                p.observed.green(),
                "{}: {}",
                p.fixture,
                p.observed.summary()
            ),
        }
        if f.category == "semantic-test" {
            let with = p
                .weakened_with
                .as_deref()
                .expect("the code mutant that proves it");
            assert_eq!(
                record.get(with).map(|e| e.status),
                Some(Status::Loud),
                "{with}"
            );
            assert!(!p.changed_tests.is_empty(), "{}", p.fixture);
        } else {
            assert!(p.weakened_with.is_none(), "{}", p.fixture);
        }
        // A lying agent's code change alone fails the tests it hollowed; a code change that
        // leaves the tests alone has nothing more to prove.
        match &p.code_alone {
            Some(alone) => {
                assert_eq!(f.category, "semantic-lying-agent", "{}", p.fixture);
                assert!(alone.killed(), "{}: {}", p.fixture, alone.summary());
                assert!(!p.changed_tests.is_empty(), "{}", p.fixture);
            }
            None => assert_ne!(f.category, "semantic-lying-agent", "{}", p.fixture),
        }
    }
    // Spread: every golden, every language, both signals, every category.
    let goldens: std::collections::BTreeSet<_> =
        hand.iter().filter_map(|f| f.golden.as_deref()).collect();
    assert_eq!(goldens.len(), 6, "{goldens:?}");
    for tag in ["python", "javascript", "rust", "loud", "silent"] {
        assert!(
            hand.iter().any(|f| f.tags.iter().any(|t| t == tag)),
            "no {tag} fixture"
        );
    }
    for category in ["semantic-code", "semantic-test", "semantic-lying-agent"] {
        assert!(
            hand.iter().any(|f| f.category == category),
            "no {category} fixture"
        );
    }
}

/// A hand-written fixture whose declared signal its suite contradicts is refused, naming the
/// fixture and the failing test (declared silent) or the green run (declared loud); so is a lying
/// agent whose code change alone the tests it hollowed never caught.
#[test]
fn a_hand_written_fixture_whose_suite_contradicts_its_signal_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = golden(dir.path(), PYTEST, 60);
    let write = |id: &str, signal: &str, calc: &str| {
        let root = fixtures.join(id);
        std::fs::create_dir_all(root.join("plant")).unwrap();
        std::fs::write(
            root.join("fixture.yaml"),
            format!(
                "id: {id}\ndescription: A changed clamp.\nextends: clamp\ncategory: semantic-code\n\
                 tags: [semantic, {signal}, python]\ntier: semantic\nsignal: {signal}\n\
                 plant:\n  overlay: plant\nexpect:\n  verdict: fail\n  \
                 kind: obligation-not-implemented\n  locus:\n    - obligation: REQ-001-B01\n"
            ),
        )
        .unwrap();
        std::fs::write(root.join("plant/calc.py"), calc).unwrap();
    };
    // The upper bound returns the lower one: a test fails, though the fixture says silent.
    write(
        "clamp-semantic-upper",
        "silent",
        &CALC.replace("return high", "return low"),
    );
    // A comment added: nothing fails, though the fixture says loud.
    write(
        "clamp-semantic-noted",
        "loud",
        &CALC.replace("return value", "return value  # in range"),
    );
    // A lying agent whose code change breaks nothing: the test it hollowed never caught it.
    write(
        "clamp-semantic-hollow",
        "silent",
        &CALC.replace("return value", "return value  # ok"),
    );
    let hollow = fixtures.join("clamp-semantic-hollow");
    std::fs::create_dir_all(hollow.join("plant/tests")).unwrap();
    std::fs::write(
        hollow.join("plant/tests/test_calc.py"),
        TESTS.replace(
            "    assert clamp(12, 0, 10) == 10\n",
            "    clamp(12, 0, 10)\n",
        ),
    )
    .unwrap();
    let yaml = hollow.join("fixture.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(&yaml, text.replace("semantic-code", "semantic-lying-agent")).unwrap();
    let corpus = corpus::load(&fixtures).unwrap_or_else(|e| panic!("{e:?}"));
    let runs = Runs::new(None);
    let refusal = |id: &str| {
        let f = corpus.get(id).unwrap();
        match handwritten::prove(&corpus, None, f, &runs) {
            Ok(p) => panic!("{id} was proved: {p:?}"),
            Err(e) => e.to_string(),
        }
    };
    let silent = refusal("clamp-semantic-upper");
    assert!(
        silent.contains(
            "clamp-semantic-upper: declared silent but the suite fails: \
             tests/test_calc.py::test_values_above_are_lowered"
        ),
        "{silent}"
    );
    let loud = refusal("clamp-semantic-noted");
    assert!(
        loud.contains(
            "clamp-semantic-noted: declared loud but the suite does not fail on it: exit 0"
        ),
        "{loud}"
    );
    let hollowed = refusal("clamp-semantic-hollow");
    assert!(
        hollowed.contains(
            "clamp-semantic-hollow: its code change alone is not caught by the tests it \
             changes: exit 0"
        ),
        "{hollowed}"
    );
    // The bundled-corpus proof over this corpus stops at the first refusal.
    assert!(handwritten::prove_all(&corpus, &runs).is_err());
}
