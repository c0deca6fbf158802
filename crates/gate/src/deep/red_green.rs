//! `red-green`: an obligation's tests must be able to fail, each of them, and its cited code must
//! matter to them. For each live obligation with code refs and test refs, each cited piece of code
//! is neutralized in the work copy, quietly and in its language's idiom (`gatebench-lang`): a
//! cited whole function given a default body (`return None`, `return;`, `Default::default()`),
//! cited statements deleted; never a raise, which fails even a test that asserts nothing but calls
//! the code. Only the obligation's tests run. A test that passes whichever cited code is
//! neutralized cannot tell the obligation's code from no code: a finding at that test. Cited code
//! without which every test still passes is not verified by them: a finding at the obligation.
//! Each test is judged on its own, so a hollow test does not hide behind a sibling that fails. A
//! run that does not build or finish judges nothing: then the function holding the cited lines is
//! given a default body instead.

use std::time::Duration;

use gatebench_lang::{Lang, Operator};
use gatebench_suite::{SuiteCommand, TestOutcome, TestResult as Ran};

use crate::check::rules::red_green;
use crate::context::live_obligations;
use crate::deep::rerun::Executed;
use crate::deep::runner::Runner;
use crate::finding::GateFinding;
use crate::ledger::{Obligation, Requirement};
use crate::load::FeatureLedger;
use crate::validators::receipt_log::leaf;
use crate::validators::refs::{parse_reference, Target};

/// A red-green run's timeout: five times its command's first run, at least 20 s.
fn timeout_of(first_ms: u64) -> Duration {
    Duration::from_millis(first_ms.saturating_mul(5)).max(Duration::from_secs(20))
}

/// The red-green findings of `feature`: one at each obligation test that passes whichever cited
/// code is neutralized, and one for each cited piece of code without which every test of the
/// obligation still passes.
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
        if let Some((mine, judged)) = trial_of(runner, obligation, executed) {
            findings.extend(findings_of(runner, requirement, obligation, &mine, &judged));
        }
    }
    findings
}

/// An obligation's passing tests and, for each of its code refs, the run that judged them with
/// that code neutralized; `None` when it has no trial ([`Trial::of`]).
fn trial_of(
    runner: &mut Runner,
    obligation: &Obligation,
    executed: &[Executed],
) -> Option<(Vec<TestOutcome>, JudgedRefs)> {
    let trial = Trial::of(obligation, executed)?;
    let judged = obligation
        .code_refs
        .iter()
        .map(|code_ref| {
            let forms = neutralizations(runner, code_ref);
            (code_ref.clone(), judge(runner, &trial, &forms))
        })
        .collect();
    Some((trial.tests, judged))
}

/// The findings of one obligation's judged runs: each test that failed in none of them, then
/// each code ref no test failed for (unless every test is already reported).
fn findings_of(
    runner: &Runner,
    requirement: &Requirement,
    obligation: &Obligation,
    mine: &[TestOutcome],
    judged: &JudgedRefs,
) -> Vec<GateFinding> {
    let at = |test_ref: &str, f: GateFinding| {
        let (path, line) = test_place(runner, test_ref);
        f.at(path, line)
            .requirement(&requirement.id)
            .obligation(&obligation.id)
    };
    let mut findings = Vec::new();
    // Each test must fail for some cited code.
    let ran: Vec<&Judged> = judged.iter().filter_map(|(_, j)| j.as_ref()).collect();
    let hollow: Vec<usize> = (0..mine.len())
        .filter(|&i| {
            ran.iter().any(|j| j.failed[i].is_some())
                && ran.iter().all(|j| j.failed[i] != Some(true))
        })
        .collect();
    for &i in &hollow {
        let test_ref = ref_of(obligation, &mine[i]);
        let how: Vec<&str> = ran.iter().map(|j| j.how.as_str()).collect();
        findings.push(at(
            test_ref,
            GateFinding::new(
                red_green::SURVIVES,
                format!(
                    "{test_ref} passes with the code of {} neutralized",
                    obligation.id
                ),
                format!(
                "{} cites {} and tests it with {test_ref}. With the cited code neutralized in a \
                 copy of the work tree ({}), that test still passes: it cannot tell the \
                 obligation's code from no code, so it does not verify it (a test that asserts \
                 nothing, is skipped, or checks something else).",
                obligation.id,
                obligation.code_refs.join(", "),
                how.join("; ")
            ),
            ),
        ));
    }
    // Each cited piece of code must matter to some test (unless every test is hollow, which
    // says it already).
    if hollow.len() == mine.len() {
        return findings;
    }
    for (code_ref, j) in judged {
        let Some(j) = j else { continue };
        if j.failed.iter().all(Option::is_none) || j.failed.contains(&Some(true)) {
            continue;
        }
        let tests: Vec<&str> = mine.iter().map(|t| t.id.as_str()).collect();
        findings.push(at(
            ref_of(obligation, &mine[0]),
            GateFinding::new(
                red_green::SURVIVES,
                format!(
                    "the tests of {} pass with {code_ref} neutralized",
                    obligation.id
                ),
                format!(
                "{} cites {code_ref} and tests {}. With that code neutralized in a copy of the \
                 work tree ({}), every one of them still passes: none verifies that code, so \
                 the obligation's tests do not cover what it cites.",
                obligation.id,
                tests.join(", "),
                j.how
            ),
            ),
        ));
    }
    findings
}

/// The test ref of `obligation` that names `test`, or the test's id.
fn ref_of<'a>(obligation: &'a Obligation, test: &'a TestOutcome) -> &'a str {
    obligation
        .test_refs
        .iter()
        .find(|r| names(&test.id, r))
        .map_or(test.id.as_str(), String::as_str)
}

/// An obligation's tests, narrowed, and how long a run of them may take.
pub(super) struct Trial {
    pub command: SuiteCommand,
    /// The obligation's tests that passed in its receipt's command as the gate ran it.
    pub tests: Vec<TestOutcome>,
    pub timeout: Duration,
}

impl Trial {
    /// The trial of `obligation`: the command of a receipt evidencing it, as it ran, narrowed to
    /// its tests that passed there (the rerun check speaks for one that did not); `None` when it
    /// has no code or test refs, no receipt of it ran, none of its tests passed, or the command
    /// cannot be narrowed to them.
    pub fn of(obligation: &Obligation, executed: &[Executed]) -> Option<Trial> {
        if obligation.code_refs.is_empty() || obligation.test_refs.is_empty() {
            return None;
        }
        let ran = executed.iter().find(|e| {
            obligation
                .evidence_receipts
                .iter()
                .any(|r| r.strip_prefix("./").unwrap_or(r) == e.receipt)
        })?;
        let framework = ran.run.parsed.framework?;
        let tests: Vec<TestOutcome> = ran
            .run
            .parsed
            .tests
            .iter()
            .filter(|t| t.result == Ran::Passed)
            .filter(|t| obligation.test_refs.iter().any(|r| names(&t.id, r)))
            .cloned()
            .collect();
        if tests.is_empty() {
            return None;
        }
        let refs: Vec<&TestOutcome> = tests.iter().collect();
        let command = ran.command.only(framework, &refs).ok()?;
        Some(Trial {
            command,
            tests,
            timeout: timeout_of(ran.run.record.duration_ms),
        })
    }
}

/// One cited piece of code with its behaviour removed: the file, its neutralized text, and how.
pub(super) struct Neutralized {
    pub path: String,
    pub text: String,
    pub how: String,
}

/// How one code ref is neutralized: the narrowest form first, and the wider one used only when
/// the first cannot be judged (it does not build, or there is none).
pub(super) struct Neutralizations {
    pub first: Option<Neutralized>,
    pub fallback: Option<Neutralized>,
}

/// Each code ref of an obligation with the run that judged its tests without that code.
type JudgedRefs = Vec<(String, Option<Judged>)>;

/// One code ref's neutralized run: how it was neutralized, and for each of the trial's tests
/// whether it failed (`None`: the run did not report it, so it judged nothing of that test).
pub(super) struct Judged {
    pub how: String,
    pub failed: Vec<Option<bool>>,
}

/// The run of `forms` that judges the trial's tests: the first form's, or the fallback's when the
/// first did not run cleanly (build, start, finish in time, report at least one of the tests);
/// `None` when neither did.
pub(super) fn judge(runner: &mut Runner, trial: &Trial, forms: &Neutralizations) -> Option<Judged> {
    for form in [&forms.first, &forms.fallback].into_iter().flatten() {
        let run = runner.run(
            &trial.command,
            Some((&form.path, &form.text)),
            trial.timeout,
        );
        if run.timed_out() || run.record.spawn_error.is_some() || run.parsed.build_failed {
            continue;
        }
        let failed: Vec<Option<bool>> = trial
            .tests
            .iter()
            .map(|test| {
                let now = run.parsed.tests.iter().find(|now| now.id == test.id)?;
                Some(now.result != Ran::Passed)
            })
            .collect();
        if failed.iter().all(Option::is_none) {
            continue;
        }
        return Some(Judged {
            how: form.how.clone(),
            failed,
        });
    }
    None
}

/// The quiet neutralizations of `code_ref` (a line range in a language the gate parses; never a
/// raise, which fails even a test that asserts nothing but calls the code). First: the functions
/// wholly inside the range given a quiet default body (`return None`, `return;`,
/// `Default::default()`), or, for part of a function, the cited statements deleted. As the
/// fallback, when that cannot be judged (deleting a statement whose binding later lines use does
/// not build): the function holding the lines given a quiet default body.
fn neutralizations(runner: &Runner, code_ref: &str) -> Neutralizations {
    let Some(Cited {
        path,
        lines: [a, b],
        lang,
        source,
    }) = cited(runner, code_ref)
    else {
        return Neutralizations {
            first: None,
            fallback: None,
        };
    };
    let form = |(text, how): (String, String)| Neutralized {
        path: path.clone(),
        text,
        how: format!("{code_ref}: {how}"),
    };
    let functions = gatebench_lang::functions(lang, &source).unwrap_or_default();
    let wholly = outermost_inside(&functions, [a, b]);
    if !wholly.is_empty() {
        return Neutralizations {
            first: quiet_bodies(lang, &source, &wholly).map(form),
            fallback: None,
        };
    }
    let deleted = gatebench_lang::neutralize(lang, &source, [a, b])
        .ok()
        .flatten()
        .filter(|n| n.operator != Operator::StubRaise)
        .map(|n| (gatebench_lang::apply(&source, &n.edits), n.description));
    let holder = functions
        .iter()
        .filter(|f| f.lines[0] <= a && b <= f.lines[1])
        .min_by_key(|f| f.lines[1] - f.lines[0]);
    Neutralizations {
        first: deleted.map(form),
        fallback: holder
            .and_then(|h| quiet_bodies(lang, &source, &[h]))
            .map(form),
    }
}

/// A code ref's file as the work tree holds it, its cited lines and its language; `None` when the
/// ref names no line range, or a file the gate does not parse or cannot read as text.
pub(super) struct Cited {
    pub path: String,
    pub lines: [u32; 2],
    pub lang: Lang,
    pub source: String,
}

pub(super) fn cited(runner: &Runner, code_ref: &str) -> Option<Cited> {
    let reference = parse_reference(code_ref);
    let path = reference.repo_path().to_owned();
    let Target::Lines(a, b) = reference.target else {
        return None;
    };
    let lines = [u32::try_from(a).ok()?, u32::try_from(b).ok()?];
    let lang = Lang::of_path(&path)?;
    let source = String::from_utf8(runner.original(&path)?.to_vec()).ok()?;
    Some(Cited {
        path,
        lines,
        lang,
        source,
    })
}

/// The functions wholly inside `lines` that no other such function holds.
fn outermost_inside(
    functions: &[gatebench_lang::Function],
    lines: [u32; 2],
) -> Vec<&gatebench_lang::Function> {
    let inside =
        |f: &gatebench_lang::Function, [a, b]: [u32; 2]| a <= f.lines[0] && f.lines[1] <= b;
    functions
        .iter()
        .filter(|f| inside(f, lines))
        .filter(|f| {
            !functions
                .iter()
                .any(|g| g != *f && inside(g, lines) && inside(f, g.lines))
        })
        .collect()
}

/// `source` with each of `chosen` given a quiet body (`gatebench_lang::quiet`: it does nothing,
/// raises nothing, and a generator stays one), and what was done; `None` when none of them has
/// such a form.
fn quiet_bodies(
    lang: Lang,
    source: &str,
    chosen: &[&gatebench_lang::Function],
) -> Option<(String, String)> {
    let picked: Vec<gatebench_lang::Mutation> = chosen
        .iter()
        .filter_map(|f| {
            gatebench_lang::quiet(lang, source, &f.qualified)
                .ok()
                .flatten()
        })
        .collect();
    if picked.is_empty() {
        return None;
    }
    let edits: Vec<gatebench_lang::Edit> = picked
        .iter()
        .flat_map(|m| m.edits.iter().cloned())
        .collect();
    let how: Vec<&str> = picked.iter().map(|m| m.description.as_str()).collect();
    Some((gatebench_lang::apply(source, &edits), how.join(", ")))
}

/// Where a test ref's test is: its file, and the first line of its definition when the parser
/// finds it.
pub(super) fn test_place(runner: &Runner, test_ref: &str) -> (String, Option<u64>) {
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

/// Whether a test id as the framework reported it is the test a test ref names.
pub(super) fn names(id: &str, test_ref: &str) -> bool {
    let Some((path, name)) = test_ref.split_once("::") else {
        return false;
    };
    // A parametrized test's cases (`test_x[3000-when0]`) are each the test the ref names.
    let id = match id.strip_suffix(']').and_then(|open| open.rfind('[')) {
        Some(bracket) => &id[..bracket],
        None => id,
    };
    id == test_ref
        || id == format!("{path}::{name}")
        || (leaf(id) == leaf(name) && (id.ends_with(&format!("::{name}")) || id == name))
        || id.ends_with(&format!(" > {name}"))
}
