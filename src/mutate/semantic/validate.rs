//! Ground truth by execution, baseline first (as cargo-mutants does): each golden's suite must
//! pass on the golden; then every code candidate runs the suite (killed: `loud`; green:
//! `survived`, not planted); every test candidate runs it alone (its signal) and then with code
//! mutants of its obligation that the original test kills (still killed by that test:
//! `equivalent`; no longer: proved, planted); every loud code mutant gives a lying agent, its
//! killing tests hollowed so that the suite is green again (`silent`, planted). Runs go through
//! [`Runs`] (sandboxed, cached by content) in parallel, killed at a timeout derived from the
//! baseline.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use gatebench_lang::{Lang, Mutation, Operator, OperatorFamily};
use gatebench_suite::SuiteCommand;
use rayon::prelude::*;

use crate::corpus::{Blob, Corpus, Fixture};
use crate::error::{Error, Result};
use crate::mutate::ledger::Ledger;
use crate::mutate::mutant::mutant_id;
use crate::mutate::semantic::candidate::{self, Candidate, Change, LYING_AGENT};
use crate::mutate::semantic::record::{Entry, Evidence, Golden, Place, Record, Status};
use crate::mutate::semantic::runs::{Observed, Runs};

/// How many code mutants a test mutant is tried with before it is called equivalent.
const PROOF_TRIES: usize = 3;

/// The most tests a lying agent hollows; a code mutant more tests kill is not given one.
const LYING_MAX_TESTS: usize = 3;

/// A golden's suite, ready to run.
pub struct Suite {
    pub command: SuiteCommand,
    pub toolchain: String,
    /// The timeout the golden declares, for its baseline.
    pub declared: Duration,
}

impl Suite {
    /// The suite `golden` declares; an error naming the golden when it declares none, the command
    /// cannot be parsed, or its program is missing.
    pub fn of(golden: &Fixture) -> Result<Suite> {
        let spec = golden.suite.as_ref().ok_or_else(|| {
            Error::invalid(
                golden.yaml_file(),
                "the golden declares no `suite:` (its test command)",
            )
        })?;
        let command = SuiteCommand::parse(&spec.command)
            .map_err(|e| Error::invalid(golden.yaml_file(), format!("suite.command: {e}")))?;
        gatebench_suite::check_available(&command)
            .map_err(|e| Error::invalid(golden.yaml_file(), format!("suite.command: {e}")))?;
        Ok(Suite {
            toolchain: gatebench_suite::toolchain_id(&command),
            declared: Duration::from_secs(spec.timeout_seconds),
            command,
        })
    }
}

/// The timeout of a mutant's run: five times the baseline's time, at least 20 s, at most what the
/// golden declares (cargo-mutants' rule, bounded).
pub fn mutant_timeout(baseline_ms: u64, declared: Duration) -> Duration {
    let derived = Duration::from_millis(baseline_ms.saturating_mul(5)).max(Duration::from_secs(20));
    derived.min(declared.max(Duration::from_secs(1)))
}

/// What a validation did, for its report.
#[derive(Debug, Default)]
pub struct Tally {
    /// Goldens validated.
    pub goldens: usize,
    pub candidates: usize,
    pub executed: usize,
    pub cached: usize,
    pub command_ms: u64,
}

/// Validates every candidate of the selected goldens (all goldens that declare a suite when
/// `goldens` is empty); `progress` is called with (golden, done, total) as its steps finish (a
/// step: a code mutant's run, a test mutant's runs, a lying agent's run).
pub fn validate(
    corpus: &Corpus,
    goldens: &[String],
    runs: &Runs,
    progress: &(dyn Fn(&str, usize, usize) + Sync),
) -> Result<(Record, Tally)> {
    let mut golden_entries = BTreeMap::new();
    let mut entries = Vec::new();
    let mut tally = Tally::default();
    for golden in corpus.fixtures.iter().filter(|f| {
        f.is_golden()
            && if goldens.is_empty() {
                f.suite.is_some()
            } else {
                goldens.contains(&f.id)
            }
    }) {
        let suite = Suite::of(golden)?;
        let ledger = Ledger::of(golden).ok_or_else(|| {
            Error::invalid(golden.yaml_file(), "the golden has no requirements ledger")
        })?;
        let baseline = runs.run(
            ledger.files,
            &suite.command,
            &suite.toolchain,
            suite.declared,
        );
        if !baseline.green() {
            return Err(Error::invalid(
                golden.yaml_file(),
                format!(
                    "the suite `{}` does not pass on the golden (baseline): {}",
                    suite.command.argv.join(" "),
                    baseline.summary()
                ),
            ));
        }
        let timeout = mutant_timeout(baseline.duration_ms, suite.declared);
        let candidates = candidate::candidates(&ledger);
        tally.candidates += candidates.len();
        tally.goldens += 1;
        entries.extend(validate_golden(
            &ledger, &suite, timeout, candidates, runs, progress,
        ));
        golden_entries.insert(
            golden.id.clone(),
            Golden {
                command: suite.command.argv.clone(),
                toolchain: suite.toolchain.clone(),
                baseline: Evidence::of("golden", &baseline),
            },
        );
    }
    tally.executed = runs.executed.load(Ordering::Relaxed);
    tally.cached = runs.cached.load(Ordering::Relaxed);
    tally.command_ms = runs.command_ms.load(Ordering::Relaxed);
    Ok((Record::new(golden_entries, entries), tally))
}

fn validate_golden(
    ledger: &Ledger<'_>,
    suite: &Suite,
    timeout: Duration,
    candidates: Vec<Candidate>,
    runs: &Runs,
    progress: &(dyn Fn(&str, usize, usize) + Sync),
) -> Vec<Entry> {
    let run = |c: &Candidate| runs.run(&c.files, &suite.command, &suite.toolchain, timeout);
    let (code, tests): (Vec<Candidate>, Vec<Candidate>) = candidates
        .into_iter()
        .partition(|c| c.family == OperatorFamily::Code);
    let total = code.len() * 2 + tests.len();
    let done = AtomicUsize::new(0);
    let tick = || {
        progress(
            &ledger.golden.id,
            done.fetch_add(1, Ordering::Relaxed) + 1,
            total,
        )
    };
    let argv = &suite.command.argv;
    // 1. Code mutants.
    let code_runs: Vec<(Candidate, Observed)> = code
        .into_par_iter()
        .map(|c| {
            let o = run(&c);
            tick();
            (c, o)
        })
        .collect();
    let mut out: Vec<Entry> = code_runs
        .iter()
        .map(|(c, o)| {
            let status = if o.killed() {
                Status::Loud
            } else {
                status_of_failure(o, Status::Survived)
            };
            entry(c, argv, status, None, vec![Evidence::of("mutant", o)])
        })
        .collect();
    let loud: Vec<&(Candidate, Observed)> = code_runs.iter().filter(|(_, o)| o.killed()).collect();
    // 2. Test mutants, each proved against the loud code mutants of its obligations.
    out.par_extend(tests.par_iter().map(|t| {
        let e = validate_test(t, &loud, argv, &run);
        tick();
        e
    }));
    // 3. Lying agents, one per loud code mutant (the others' steps count as done).
    done.fetch_add(code_runs.len() - loud.len(), Ordering::Relaxed);
    out.par_extend(loud.par_iter().filter_map(|(c, o)| {
        let e = lying_agent(ledger, c, &o.failing).map(|la| {
            let hollowed = run(&la);
            let status = if hollowed.green() {
                Status::Silent
            } else {
                status_of_failure(&hollowed, Status::Unproven)
            };
            entry(
                &la,
                argv,
                status,
                Some(c.id.clone()),
                vec![
                    Evidence::of(format!("{} alone", c.id), o),
                    Evidence::of("mutant", &hollowed),
                ],
            )
        });
        tick();
        e
    }));
    out
}

/// The status of a run that was not what was hoped for: a timeout, a build failure, a command
/// that could not start, or `otherwise`.
fn status_of_failure(o: &Observed, otherwise: Status) -> Status {
    if o.timed_out {
        Status::Timeout
    } else if o.build_failed {
        Status::Unviable
    } else if o.spawn_error.is_some() {
        Status::Error
    } else {
        otherwise
    }
}

fn validate_test(
    t: &Candidate,
    loud: &[&(Candidate, Observed)],
    argv: &[String],
    run: &(dyn Fn(&Candidate) -> Observed + Sync),
) -> Entry {
    let alone = run(t);
    let mut evidence = vec![Evidence::of("mutant", &alone)];
    if !alone.green() {
        let status = if alone.killed() {
            Status::Broken
        } else {
            status_of_failure(&alone, Status::Broken)
        };
        return entry(t, argv, status, None, evidence);
    }
    let change = &t.changes[0];
    let test_name = &change.mutation.function;
    let weakening = weakened_by(
        loud.iter().map(|(c, o)| (c, o.failing.as_slice())),
        &t.obligations,
        &|id| names_test(id, &change.path, test_name),
        PROOF_TRIES,
        &|code| run(&combine(t, code, "with")),
    );
    evidence.extend(weakening.evidence);
    let status = match (&weakening.with, weakening.tried) {
        (Some(_), _) => Status::Silent,
        (None, 0) => Status::Unproven,
        (None, _) => Status::Equivalent,
    };
    entry(t, argv, status, weakening.with, evidence)
}

/// What trying a test change with code mutants found.
#[derive(Debug, Default)]
pub struct Weakening {
    /// The code mutant that proves the change weakens verification.
    pub with: Option<String>,
    /// How many code mutants were tried.
    pub tried: usize,
    /// Each try's run, as `with <code mutant id>`.
    pub evidence: Vec<Evidence>,
}

/// Proves that a test change weakens verification: of `loud` (code mutants, each with the tests
/// that failed on it alone), those that touch one of `obligations` and that one of the changed
/// tests kills (`changed` tells a failing test id of theirs) are tried in order, at most `tries`,
/// each run with the test change made (`run_with`); the first on which no changed test fails any
/// more proves it. A try that timed out, did not build or could not start proves nothing.
pub fn weakened_by<'a>(
    loud: impl IntoIterator<Item = (&'a Candidate, &'a [String])>,
    obligations: &[String],
    changed: &dyn Fn(&str) -> bool,
    tries: usize,
    run_with: &dyn Fn(&Candidate) -> Observed,
) -> Weakening {
    let mut out = Weakening::default();
    let provers = loud.into_iter().filter(|(c, failing)| {
        c.obligations.iter().any(|ob| obligations.contains(ob))
            && failing.iter().any(|id| changed(id))
    });
    for (code, _) in provers.take(tries) {
        out.tried += 1;
        let o = run_with(code);
        out.evidence
            .push(Evidence::of(format!("with {}", code.id), &o));
        if o.timed_out || o.build_failed || o.spawn_error.is_some() {
            continue;
        }
        if !o.failing.iter().any(|id| changed(id)) {
            out.with = Some(code.id.clone());
            break;
        }
    }
    out
}

/// Whether a test id as the framework reported it names the test `name` of `path`: pytest ids
/// are `path::name`; node's are titles (nested ones joined by ` > `); libtest's are module paths,
/// prefixed here by their target.
pub fn names_test(id: &str, path: &str, name: &str) -> bool {
    id == name
        || id == format!("{path}::{name}")
        || id.ends_with(&format!("::{name}"))
        || id.ends_with(&format!(" > {name}"))
}

/// `t`'s changes and `code`'s on one tree (edits to the same file applied together: they were
/// both computed on the golden's text and do not overlap, one being in code, the other in a test).
fn combine(t: &Candidate, code: &Candidate, how: &str) -> Candidate {
    let mut changes = code.changes.clone();
    changes.extend(t.changes.iter().cloned());
    let mut files = t.files.clone();
    let mut by_path: BTreeMap<&str, Vec<&Mutation>> = BTreeMap::new();
    for c in &changes {
        by_path.entry(&c.path).or_default().push(&c.mutation);
    }
    for (path, mutations) in by_path {
        let original = changes
            .iter()
            .find(|c| c.path == path)
            .map_or("", |c| c.original.as_str());
        let edits: Vec<_> = mutations
            .iter()
            .flat_map(|m| m.edits.iter().cloned())
            .collect();
        files.insert(
            path.to_owned(),
            Blob::from(gatebench_lang::apply(original, &edits).into_bytes()),
        );
    }
    let mut obligations = t.obligations.clone();
    obligations.extend(code.obligations.iter().cloned());
    obligations.sort();
    obligations.dedup();
    Candidate {
        id: format!("{} {how} {}", t.id, code.id),
        golden: t.golden.clone(),
        operator: t.operator.clone(),
        family: t.family,
        changes,
        obligations,
        files,
    }
}

/// The lying agent of a loud code mutant: each test that killed it hollowed (its assertions
/// deleted, or its body emptied: the form chosen by the test's name), so that the suite is green
/// again while every receipt, log and hash still agrees (the hollowed tests still run and pass,
/// so the logs the golden recorded stay true to their names). `None` when a killing test cannot
/// be found in the tree's test files or too many tests killed it.
pub fn lying_agent(ledger: &Ledger<'_>, code: &Candidate, failing: &[String]) -> Option<Candidate> {
    if failing.is_empty() || failing.len() > LYING_MAX_TESTS {
        return None;
    }
    let mut hollowed: Vec<Change> = Vec::new();
    for id in failing {
        hollowed.push(hollow(ledger, id)?);
    }
    // One candidate with every change: the code mutant's, then each hollowed test's.
    let mut la = code.clone();
    for h in hollowed {
        let mut one = code.clone();
        one.changes = vec![h];
        la = combine(&one, &la, "and");
    }
    let (_, op, code_site) = crate::mutate::mutant::parse_id(&code.id)?;
    la.id = mutant_id(&code.golden, LYING_AGENT, &format!("{op}-{code_site}"));
    la.operator = LYING_AGENT.to_owned();
    la.family = OperatorFamily::Code;
    Some(la)
}

/// The change that hollows the test a framework reported as `id`, found in the golden's test
/// files by name.
fn hollow(ledger: &Ledger<'_>, id: &str) -> Option<Change> {
    for (path, content) in ledger.files.iter() {
        let Some(lang) = Lang::of_path(path) else {
            continue;
        };
        if !candidate::is_test_path(path) && lang != Lang::Rust {
            continue;
        }
        let Ok(text) = std::str::from_utf8(content) else {
            continue;
        };
        let Ok(tests) = gatebench_lang::tests(lang, text) else {
            continue;
        };
        let Some(test) = tests.iter().find(|t| names_test(id, path, &t.name)) else {
            continue;
        };
        let by_name: u32 = test.name.bytes().map(u32::from).sum();
        let drop_all = by_name % 2 == 0;
        let op = if drop_all {
            Operator::DropAssertion
        } else {
            Operator::EmptyTestBody
        };
        let mutations = gatebench_lang::mutations(lang, text, op).ok()?;
        let mine: Vec<&Mutation> = mutations
            .iter()
            .filter(|m| m.function == test.name)
            .collect();
        let first = (*mine.first()?).clone();
        let mutation = Mutation {
            edits: mine.iter().flat_map(|m| m.edits.iter().cloned()).collect(),
            description: if drop_all {
                format!("`{}`: every assertion deleted", test.name)
            } else {
                first.description.clone()
            },
            lines: [
                mine.iter().map(|m| m.lines[0]).min()?,
                mine.iter().map(|m| m.lines[1]).max()?,
            ],
            ..first
        };
        return Some(Change {
            path: path.clone(),
            original: text.to_owned(),
            mutation,
        });
    }
    None
}

fn entry(
    c: &Candidate,
    argv: &[String],
    status: Status,
    with: Option<String>,
    runs: Vec<Evidence>,
) -> Entry {
    Entry {
        id: c.id.clone(),
        golden: c.golden.clone(),
        operator: c.operator.clone(),
        family: if c.operator == LYING_AGENT {
            LYING_AGENT.to_owned()
        } else {
            <&str>::from(c.family).to_owned()
        },
        key: c.key(argv),
        status,
        description: c.description(),
        obligations: c.obligations.clone(),
        places: c
            .changes
            .iter()
            .map(|ch| Place {
                path: ch.path.clone(),
                lines: ch.mutation.lines,
            })
            .collect(),
        with,
        runs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framework_ids_name_tests() {
        assert!(names_test("tests/t.py::test_a", "tests/t.py", "test_a"));
        assert!(names_test(
            "parses key value pairs",
            "test/p.test.js",
            "parses key value pairs"
        ));
        assert!(names_test("suite > parses", "test/p.test.js", "parses"));
        assert!(names_test(
            "src/lib.rs::bucket::tests::refill",
            "src/bucket.rs",
            "tests::refill"
        ));
        assert!(names_test(
            "tests/bucket.rs::a_full_bucket",
            "tests/bucket.rs",
            "a_full_bucket"
        ));
        assert!(!names_test("tests/t.py::test_ab", "tests/t.py", "test_a"));
    }

    #[test]
    fn timeouts_derive_from_the_baseline() {
        let declared = Duration::from_secs(120);
        assert_eq!(mutant_timeout(300, declared), Duration::from_secs(20));
        assert_eq!(mutant_timeout(10_000, declared), Duration::from_secs(50));
        assert_eq!(mutant_timeout(60_000, declared), declared);
    }
}
