//! Hand-written semantic fixtures (`fixtures/<golden>-semantic-*`, `tier: semantic`) proved by
//! execution, as the generated ones are: the golden's declared suite runs on the fixture's head
//! tree in the sandbox and must fail (`loud`) or stay green (`silent`) as the fixture declares; a
//! fixture that changes tests (`test-not-verifying`) must also be shown to weaken verification: a
//! code mutant of its obligations that a changed test kills on the golden gets past the changed
//! tests once the fixture's change is made (the proof of `validate.rs`, [`validate::weakened_by`]).

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
    /// A test change: the tests it changes, as `path::name`.
    pub changed_tests: Vec<String>,
    /// A test change: the code mutant (a record id) that the golden's tests kill and the changed
    /// tests let through.
    pub weakened_with: Option<String>,
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

/// Proves one hand-written semantic fixture of `corpus` by running its golden's suite (see the
/// module's doc); `record` (the validation record) is needed for a test change. An error names
/// the fixture and says which proof failed, e.g. "declared silent but the suite fails: ...".
pub fn prove(
    corpus: &Corpus,
    record: Option<&Record>,
    fixture: &Fixture,
    runs: &Runs,
) -> Result<Proof> {
    let fail = |why: String| Error::invalid(fixture.yaml_file(), format!("{}: {why}", fixture.id));
    let signal = match (fixture.tier, fixture.signal) {
        (Tier::Semantic, Some(s)) => s,
        _ => return Err(fail("not a semantic fixture with a declared signal".into())),
    };
    let golden = fixture
        .golden
        .as_deref()
        .and_then(|g| corpus.get(g))
        .ok_or_else(|| fail("its golden is not in the corpus".into()))?;
    let suite = Suite::of(golden)?;
    let full = fixture.full()?;
    let files = full.compose()?.final_files().clone();
    let observed = runs.run(&files, &suite.command, &suite.toolchain, suite.declared);
    match signal {
        Signal::Loud if !observed.killed() => {
            return Err(fail(format!(
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
            return Err(fail(format!("declared silent but the suite fails: {why}")));
        }
        _ => {}
    }
    let mut proof = Proof {
        fixture: fixture.id.clone(),
        signal,
        observed,
        changed_tests: Vec::new(),
        weakened_with: None,
    };
    if full.expect.kind != Some(Kind::TestNotVerifying) {
        return Ok(proof);
    }
    let ledger = Ledger::of(golden).ok_or_else(|| fail("its golden has no ledger".into()))?;
    let changed = changed_tests(ledger.files, &files);
    if changed.is_empty() {
        return Err(fail(
            "a test change that changes no test of the golden".into(),
        ));
    }
    let record =
        record.ok_or_else(|| fail("no validation record to find code mutants in".into()))?;
    let obligations: Vec<String> = full
        .expect
        .locus
        .iter()
        .filter_map(|l| l.obligation.clone())
        .collect();
    let argv = &suite.command.argv;
    let candidates = candidate::candidates(&ledger);
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
    let overlay = changed_files(ledger.files, &files);
    let weakening = validate::weakened_by(loud, &obligations, &is_changed, TRIES, &|code| {
        runs.run(
            &with_overlay(code, &overlay),
            &suite.command,
            &suite.toolchain,
            suite.declared,
        )
    });
    proof.changed_tests = changed.iter().map(|(p, n)| format!("{p}::{n}")).collect();
    match weakening.with {
        Some(with) => {
            proof.weakened_with = Some(with);
            Ok(proof)
        }
        None => Err(fail(format!(
            "no code mutant of {} that the golden's tests kill gets past the changed tests {} \
             (tried {})",
            obligations.join(", "),
            proof.changed_tests.join(", "),
            weakening.tried
        ))),
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

/// `code`'s tree with the fixture's changed files written over it.
fn with_overlay(code: &Candidate, overlay: &Files) -> Files {
    let mut files = code.files.clone();
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
