//! `red-green`: an obligation's tests must be able to fail. For each live obligation with code
//! refs and test refs, each cited piece of code is neutralized in the work copy (the cited
//! statements deleted, or a cited whole function stubbed, in its language's idiom:
//! `gatebench-lang`) and only the obligation's tests run: if they all still pass, deleting the code
//! did not matter to them. Cited lines may be redundant (a guard another line also enforces), so
//! the function that holds them is then given a quiet default body (`return None`, `return;`,
//! `Default::default()`: never a raise, which fails even a test that asserts nothing); if the
//! tests pass even so, they cannot tell the obligation's code from no code at all: a finding at
//! each test ref and the obligation. An obligation with forbidden effects must also have a test
//! with a negative assertion (docs/CONCEPTS.md#loom-omission-hunter), read with the parser.

use std::time::Duration;

use gatebench_lang::{Lang, Operator};
use gatebench_suite::{SuiteCommand, TestOutcome, TestResult as Ran};

use crate::check::rules::red_green;
use crate::context::live_obligations;
use crate::deep::rerun::Executed;
use crate::deep::runner::Runner;
use crate::finding::GateFinding;
use crate::load::FeatureLedger;
use crate::validators::receipt_log::leaf;
use crate::validators::refs::{parse_reference, Target};

/// A red-green run's timeout: five times its command's first run, at least 20 s.
fn timeout_of(first_ms: u64) -> Duration {
    Duration::from_millis(first_ms.saturating_mul(5)).max(Duration::from_secs(20))
}

/// The red-green findings of `feature`: one at most per obligation, at its first test ref.
pub fn findings(
    runner: &mut Runner,
    feature: &FeatureLedger,
    executed: &[Executed],
) -> Vec<GateFinding> {
    let Some(requirements) = &feature.requirements else {
        return Vec::new();
    };
    let mut findings = Vec::new();
    for (requirement, obligation) in live_obligations(&requirements.value) {
        if obligation.code_refs.is_empty() || obligation.test_refs.is_empty() {
            continue;
        }
        // The command of a receipt that evidences the obligation, as it ran.
        let Some(ran) = executed.iter().find(|e| {
            obligation
                .evidence_receipts
                .iter()
                .any(|r| r.strip_prefix("./").unwrap_or(r) == e.receipt)
        }) else {
            continue;
        };
        let Some(framework) = ran.run.parsed.framework else {
            continue;
        };
        // The obligation's tests as its command reports them; each must have passed (the rerun
        // check speaks for one that did not).
        let mine: Vec<&TestOutcome> = ran
            .run
            .parsed
            .tests
            .iter()
            .filter(|t| obligation.test_refs.iter().any(|r| names(&t.id, r)))
            .collect();
        if mine.is_empty() || mine.iter().any(|t| t.result != Ran::Passed) {
            continue;
        }
        let Ok(narrowed) = ran.command.only(framework, &mine) else {
            continue;
        };
        let trial = Trial {
            command: &narrowed,
            tests: &mine,
            timeout: timeout_of(ran.run.record.duration_ms),
        };
        let survivor = obligation.code_refs.iter().find_map(|code_ref| {
            survives_without(runner, &trial, code_ref).map(|how| (code_ref, how))
        });
        let Some((code_ref, how)) = survivor else {
            continue;
        };
        let tests: Vec<&str> = mine.iter().map(|t| t.id.as_str()).collect();
        let (test_path, test_line) = test_place(runner, &obligation.test_refs[0]);
        findings.push(
            GateFinding::new(
                red_green::SURVIVES,
                format!(
                    "the tests of {} pass with {code_ref} neutralized",
                    obligation.id
                ),
                format!(
                    "{} cites {code_ref} and tests {}. With that code neutralized in a copy of the \
                     work tree ({how}), the tests still pass: they cannot tell the obligation's \
                     code from no code, so they do not verify it (a test that asserts nothing, is \
                     skipped, or checks something else).",
                    obligation.id,
                    tests.join(", ")
                ),
            )
            .at(test_path, test_line)
            .requirement(&requirement.id)
            .obligation(&obligation.id),
        );
    }
    findings
}

/// An obligation's tests, narrowed, and how long a run of them may take.
struct Trial<'a> {
    command: &'a SuiteCommand,
    tests: &'a [&'a TestOutcome],
    timeout: Duration,
}

/// How `code_ref` was neutralized when the obligation's tests all still pass without it; `None`
/// when they fail (they verify it) or it cannot be neutralized (not a line range in a language
/// the gate parses, no whole statement inside).
///
/// Quiet neutralizations only: a raise fails even a test that asserts nothing but calls the code.
/// The cited statements deleted, then (they may be redundant) the function holding them given a
/// quiet default body; a cited whole function, only the latter.
fn survives_without(runner: &mut Runner, trial: &Trial<'_>, code_ref: &str) -> Option<String> {
    let reference = parse_reference(code_ref);
    let path = reference
        .path
        .strip_prefix("./")
        .unwrap_or(&reference.path)
        .to_owned();
    let Target::Lines(a, b) = reference.target else {
        return None;
    };
    let lines = [u32::try_from(a).ok()?, u32::try_from(b).ok()?];
    let lang = Lang::of_path(&path)?;
    let source = String::from_utf8(runner.original(&path)?.to_vec()).ok()?;
    let neutral = gatebench_lang::neutralize(lang, &source, lines).ok()??;
    let mut attempts = Vec::new();
    if neutral.operator != Operator::StubRaise {
        attempts.push((
            gatebench_lang::apply(&source, &neutral.edits),
            neutral.description.clone(),
        ));
    }
    attempts.extend(quiet_body(lang, &source, lines));
    if attempts.is_empty() {
        return None;
    }
    let verified = attempts.iter().any(|(text, _)| {
        !survives(
            &runner.run(trial.command, Some((&path, text)), trial.timeout),
            trial.tests,
        )
    });
    if verified {
        return None;
    }
    let how: Vec<&str> = attempts.iter().map(|(_, d)| d.as_str()).collect();
    Some(how.join("; then "))
}

/// Where a test ref's test is: its file, and the first line of its definition when the parser
/// finds it.
fn test_place(runner: &Runner, test_ref: &str) -> (String, Option<u64>) {
    let (path, name) = test_ref.split_once("::").unwrap_or((test_ref, ""));
    let line = Lang::of_path(path).and_then(|lang| {
        let text = String::from_utf8(runner.original(path)?.to_vec()).ok()?;
        let tests = gatebench_lang::tests(lang, &text).ok()?;
        tests
            .iter()
            .find(|t| t.name == name)
            .map(|t| u64::from(t.lines[0]))
    });
    (path.to_owned(), line)
}

/// Whether the narrowed run shows every one of the obligation's tests passing still.
fn survives(run: &gatebench_suite::SuiteRun, mine: &[&TestOutcome]) -> bool {
    if run.timed_out() || run.record.spawn_error.is_some() || run.parsed.build_failed {
        return false;
    }
    run.record.exit_code == Some(0)
        && mine.iter().all(|t| {
            run.parsed
                .tests
                .iter()
                .any(|now| now.id == t.id && now.result == Ran::Passed)
        })
}

/// `source` with the innermost function holding `lines` given the language's quiet default body,
/// and what was done; `None` when no function holds them or it has no such form.
fn quiet_body(lang: Lang, source: &str, lines: [u32; 2]) -> Option<(String, String)> {
    let functions = gatebench_lang::functions(lang, source).ok()?;
    let holder = functions
        .iter()
        .filter(|f| f.lines[0] <= lines[0] && lines[1] <= f.lines[1])
        .min_by_key(|f| f.lines[1] - f.lines[0])?;
    let stub = gatebench_lang::mutations(lang, source, Operator::StubDefault)
        .ok()?
        .into_iter()
        .find(|m| m.function == holder.qualified)?;
    Some((gatebench_lang::apply(source, &stub.edits), stub.description))
}

/// Whether a test id as the framework reported it is the test a test ref names.
fn names(id: &str, test_ref: &str) -> bool {
    let Some((path, name)) = test_ref.split_once("::") else {
        return false;
    };
    id == test_ref
        || id == format!("{path}::{name}")
        || (leaf(id) == leaf(name) && (id.ends_with(&format!("::{name}")) || id == name))
        || id.ends_with(&format!(" > {name}"))
}
