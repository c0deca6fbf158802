//! Hand-written semantic fixtures (`fixtures/<golden>-semantic-*`, `tier: semantic`) proved by
//! execution, as the generated ones are: the golden's declared suite runs on the fixture's head
//! tree in the sandbox and must fail (`loud`) or stay green (`silent`) as the fixture declares; a
//! fixture that changes tests (`test-not-verifying`) must also be shown to weaken verification: a
//! code mutant of its obligations that a changed test kills on the golden gets past the changed
//! tests once the fixture's change is made (the proof of `validate.rs`, [`validate::weakened_by`]);
//! a lying agent (a code change with tests changed too) must have a code change that, run alone on
//! the golden's tests, fails a test it changes.

use std::collections::BTreeSet;

use gatebench_lang::{Lang, OperatorFamily};

use crate::corpus::taxonomy::{Kind, Signal, Tier};
use crate::corpus::{Corpus, Files, Fixture};
use crate::error::{Error, Result};
use crate::mutate::ledger::Ledger;
use crate::mutate::semantic::candidate::{self, Candidate};
use crate::mutate::semantic::record::{Record, Status};
use crate::mutate::semantic::runs::{Observed, Runs};
use crate::mutate::semantic::validate::{self, names_test, Suite};

/// How many code mutants a hand-written test change is tried with before it is refused.
const TRIES: usize = 8;

/// What proved one hand-written fixture.
#[derive(Debug, Clone)]
pub struct Proof {
    pub fixture: String,
    pub signal: Signal,
    /// The golden's suite on the fixture's head tree.
    pub observed: Observed,
    /// The tests the fixture changes, as `path::name` (a test change, a lying agent).
    pub changed_tests: Vec<String>,
    /// A test change: the code mutant (a record id) that the golden's tests kill and the changed
    /// tests let through.
    pub weakened_with: Option<String>,
    /// A code change that also changes tests (a lying agent): the suite on the code change alone,
    /// the golden's tests kept, which fails, among others, a test the fixture changes.
    pub code_alone: Option<Observed>,
}

/// Every fixture of `corpus` with `tier: semantic` (the bundled corpus holds only hand-written
/// ones: generated mutants are not loaded from disk), each proved by [`prove`]; the first failed
/// proof is the error.
pub fn prove_all(corpus: &Corpus, runs: &Runs) -> Result<Vec<Proof>> {
    let record = Record::load(&corpus.dir)?;
    corpus
        .fixtures
        .iter()
        .filter(|f| f.tier == Tier::Semantic && !f.is_golden())
        .map(|f| prove(corpus, record.as_ref(), f, runs))
        .collect()
}

/// One fixture being proved: what every step needs.
struct Ctx<'a> {
    fixture: &'a Fixture,
    ledger: Ledger<'a>,
    suite: Suite,
    /// The fixture's head tree.
    files: Files,
    runs: &'a Runs,
}

impl Ctx<'_> {
    fn fail(&self, why: impl std::fmt::Display) -> Error {
        Error::invalid(
            self.fixture.yaml_file(),
            format!("{}: {why}", self.fixture.id),
        )
    }

    fn run(&self, files: &Files) -> Observed {
        let s = &self.suite;
        self.runs.run(files, &s.command, &s.toolchain, s.declared)
    }
}

/// Proves one hand-written semantic fixture of `corpus` by running its golden's suite (see the
/// module's doc); `record` (the validation record) is needed for a test change. An error names
/// the fixture and says which proof failed, e.g. "declared silent but the suite fails: ...".
pub fn prove(
    corpus: &Corpus,
    record: Option<&Record>,
    fixture: &Fixture,
    runs: &Runs,
) -> Result<Proof> {
    let fail = |why: &str| Error::invalid(fixture.yaml_file(), format!("{}: {why}", fixture.id));
    let signal = match (fixture.tier, fixture.signal) {
        (Tier::Semantic, Some(s)) => s,
        _ => return Err(fail("not a semantic fixture with a declared signal")),
    };
    let golden = fixture
        .golden
        .as_deref()
        .and_then(|g| corpus.get(g))
        .ok_or_else(|| fail("its golden is not in the corpus"))?;
    let full = fixture.full()?;
    let cx = Ctx {
        fixture,
        ledger: Ledger::of(golden).ok_or_else(|| fail("its golden has no ledger"))?,
        suite: Suite::of(golden)?,
        files: full.compose()?.final_files().clone(),
        runs,
    };
    let observed = cx.run(&cx.files);
    match signal {
        Signal::Loud if !observed.killed() => {
            return Err(cx.fail(format_args!(
                "declared loud but the suite does not fail on it: {}",
                observed.summary()
            )))
        }
        Signal::Silent if !observed.green() => {
            let why = if observed.failing.is_empty() {
                observed.summary()
            } else {
                observed.failing.join(", ")
            };
            return Err(cx.fail(format_args!("declared silent but the suite fails: {why}")));
        }
        _ => {}
    }
    let changed = changed_tests(cx.ledger.files, &cx.files);
    let mut proof = Proof {
        fixture: fixture.id.clone(),
        signal,
        observed,
        changed_tests: changed.iter().map(|(p, n)| format!("{p}::{n}")).collect(),
        weakened_with: None,
        code_alone: None,
    };
    if full.expect.kind == Some(Kind::TestNotVerifying) {
        if changed.is_empty() {
            return Err(cx.fail("a test change that changes no test of the golden"));
        }
        let record =
            record.ok_or_else(|| cx.fail("no validation record to find code mutants in"))?;
        let obligations: Vec<String> = full
            .expect
            .locus
            .iter()
            .filter_map(|l| l.obligation.clone())
            .collect();
        proof.weakened_with = Some(weakened(&cx, record, &obligations, &changed)?);
    } else if !changed.is_empty() {
        proof.code_alone = Some(code_alone(&cx, &changed)?);
    }
    Ok(proof)
}

/// The loud code mutant of `obligations` (a record id) that a changed test kills on the golden and
/// that gets past the changed tests once the fixture's change is made.
fn weakened(
    cx: &Ctx<'_>,
    record: &Record,
    obligations: &[String],
    changed: &[(String, String)],
) -> Result<String> {
    let argv = &cx.suite.command.argv;
    let candidates = candidate::candidates(&cx.ledger);
    let loud: Vec<(&Candidate, &[String])> = candidates
        .iter()
        .filter(|c| c.family == OperatorFamily::Code)
        .filter_map(|c| {
            let e = record.get(&c.id)?;
            let alone = e.runs.iter().find(|r| r.role == "mutant")?;
            (e.status == Status::Loud && e.key == c.key(argv))
                .then_some((c, alone.failing.as_slice()))
        })
        .collect();
    let is_changed = |id: &str| changed.iter().any(|(p, n)| names_test(id, p, n));
    let overlay = changed_files(cx.ledger.files, &cx.files);
    let weakening = validate::weakened_by(loud, obligations, &is_changed, TRIES, &|code| {
        cx.run(&with_overlay(&code.files, &overlay))
    });
    weakening.with.ok_or_else(|| {
        let names: Vec<String> = changed.iter().map(|(p, n)| format!("{p}::{n}")).collect();
        cx.fail(format_args!(
            "no code mutant of {} that the golden's tests kill gets past the changed tests {} \
             (tried {})",
            obligations.join(", "),
            names.join(", "),
            weakening.tried
        ))
    })
}

/// A lying agent's code change run alone, on the golden's tests: it must fail one of the tests the
/// fixture changes (they were hollowed because they caught it).
fn code_alone(cx: &Ctx<'_>, changed: &[(String, String)]) -> Result<Observed> {
    let test_paths: BTreeSet<&str> = changed.iter().map(|(p, _)| p.as_str()).collect();
    let code: Files = changed_files(cx.ledger.files, &cx.files)
        .into_iter()
        .filter(|(path, _)| !test_paths.contains(path.as_str()))
        .collect();
    let alone = cx.run(&with_overlay(cx.ledger.files, &code));
    let caught = alone
        .failing
        .iter()
        .any(|id| changed.iter().any(|(p, n)| names_test(id, p, n)));
    if alone.killed() && caught {
        Ok(alone)
    } else {
        Err(cx.fail(format_args!(
            "its code change alone is not caught by the tests it changes: {}",
            alone.summary()
        )))
    }
}

/// The tests of the golden's files that the fixture's tree changes: gone, or with another body or
/// another status (skipped, expected to fail), as (path, name).
pub fn changed_tests(golden: &Files, tree: &Files) -> Vec<(String, String)> {
    let mut out = BTreeSet::new();
    for (path, before) in golden {
        let Some(lang) = Lang::of_path(path) else {
            continue;
        };
        let after = tree.get(path);
        if after.is_some_and(|a| **a == **before) {
            continue;
        }
        let Ok(before) = std::str::from_utf8(before) else {
            continue;
        };
        let Ok(old) = gatebench_lang::tests(lang, before) else {
            continue;
        };
        let after = after
            .and_then(|a| std::str::from_utf8(a).ok())
            .unwrap_or_default();
        let new = gatebench_lang::tests(lang, after).unwrap_or_default();
        for t in &old {
            let same = new.iter().any(|n| {
                n.name == t.name
                    && n.status == t.status
                    && after.get(n.body.clone()) == before.get(t.body.clone())
            });
            if !same {
                out.insert((path.clone(), t.name.clone()));
            }
        }
    }
    out.into_iter().collect()
}

/// The files of `tree` that differ from `golden`'s (added or changed).
fn changed_files(golden: &Files, tree: &Files) -> Files {
    let mut out = Files::new();
    for (path, content) in tree {
        if golden.get(path) != Some(content) {
            out.insert(path.clone(), content.clone());
        }
    }
    out
}

/// `base` with the files of `overlay` written over it.
fn with_overlay(base: &Files, overlay: &Files) -> Files {
    let mut files = base.clone();
    for (path, content) in overlay {
        files.insert(path.clone(), content.clone());
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Blob;

    fn files(pairs: &[(&str, &str)]) -> Files {
        pairs
            .iter()
            .map(|(p, t)| ((*p).to_owned(), Blob::from(t.as_bytes())))
            .collect()
    }

    #[test]
    fn changed_tests_are_those_gone_edited_or_marked() {
        let golden = "def test_a():\n    assert 1\n\n\ndef test_b():\n    assert 2\n\n\n\
                      def test_c():\n    assert 3\n\n\ndef test_d():\n    assert 4\n";
        let changed = "import pytest\n\n\ndef test_a():\n    assert 1\n\n\n\
                       def test_b():\n    assert True\n\n\n@pytest.mark.skip\ndef test_c():\n    \
                       assert 3\n\n\n# def test_d():\n#     assert 4\n";
        let before = files(&[("tests/test_x.py", golden), ("x.py", "A = 1\n")]);
        let after = files(&[("tests/test_x.py", changed), ("x.py", "A = 2\n")]);
        let names: Vec<String> = changed_tests(&before, &after)
            .into_iter()
            .map(|(p, n)| format!("{p}::{n}"))
            .collect();
        assert_eq!(
            names,
            [
                "tests/test_x.py::test_b",
                "tests/test_x.py::test_c",
                "tests/test_x.py::test_d"
            ]
        );
        assert!(changed_tests(&before, &before).is_empty());
        let overlay = changed_files(&before, &after);
        assert_eq!(overlay.len(), 2);
        assert!(changed_files(&before, &before).is_empty());
    }
}
