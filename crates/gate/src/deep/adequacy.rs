//! `adequacy`: each effect and each decision in an obligation's cited code must matter to its
//! tests. Red-green (`red_green.rs`) removes a cited piece of code whole, which fails a test that
//! checks any one thing about it; a test that lost the assertion on what the code writes, prints
//! or refuses still fails there, through what it kept. So here the cited code is changed one
//! site at a time, the way a partial omission looks: a call statement deleted (an event not
//! published, a line not printed, a total not added), a guard deleted, an error branch emptied, a
//! comparison reversed (`gatebench_lang::mutations`, restricted to the cited lines). The tests of
//! the obligations citing the site run against each change; a change that none of them fails is
//! cited code they do not verify: a finding at each of those obligations, naming the change.
//!
//! This is mutation testing over the cited lines only, and it is the costliest deep check (one run
//! per site), so it runs last and only for work every check before it would pass: a verdict that
//! is already FAIL cannot get worse. An equivalent change (a guard the code after it makes
//! redundant) cannot be told apart by any test, so it is reported too: the cited line is dead
//! code, and a finding says which.

use std::collections::BTreeMap;

use gatebench_lang::Operator;

use crate::check::rules::red_green;
use crate::context::live_obligations;
use crate::deep::red_green::{cited, judge, Cited, Neutralizations, Neutralized, Trial};
use crate::deep::rerun::Executed;
use crate::deep::runner::Runner;
use crate::finding::GateFinding;
use crate::ledger::{Obligation, Requirement};
use crate::load::FeatureLedger;

/// The changes tried at each site of the cited lines: the partial omissions of a behaviour.
const OPERATORS: [Operator; 4] = [
    Operator::DropSideEffect,
    Operator::DropGuard,
    Operator::DropErrorBranch,
    Operator::FlipComparison,
];

/// The adequacy findings of `feature`: for each change in cited code that none of the tests of
/// any obligation citing it fails, one finding at each of those obligations whose tests ran
/// against it. A site is judged by
/// every obligation whose cited lines hold it (code shared by several behaviours is cited by each,
/// and each tests its own side of it); the first run a test fails in settles it.
pub fn findings(
    runner: &mut Runner,
    feature: &FeatureLedger,
    executed: &[Executed],
) -> Vec<GateFinding> {
    let Some(requirements) = &feature.requirements else {
        return Vec::new();
    };
    // Each site, with the obligations citing it (and their trials), in the order first cited.
    let mut sites: Vec<(Neutralized, Vec<usize>)> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut citing = Vec::new();
    for (requirement, obligation) in live_obligations(&requirements.value) {
        let Some(trial) = Trial::of(obligation, executed) else {
            continue;
        };
        let at = citing.len();
        for (key, change) in changes(runner, obligation) {
            let i = *index.entry(key).or_insert_with(|| {
                sites.push((change, Vec::new()));
                sites.len() - 1
            });
            sites[i].1.push(at);
        }
        citing.push((requirement, obligation, trial));
    }
    let mut findings = Vec::new();
    for (change, by) in sites {
        let forms = Neutralizations {
            first: Some(change),
            fallback: None,
        };
        // The obligations whose tests ran against the change; empty once one of them failed.
        let mut judged_by = Vec::new();
        for &i in &by {
            let Some(judged) = judge(runner, &citing[i].2, &forms) else {
                continue;
            };
            if judged.failed.contains(&Some(true)) {
                judged_by.clear();
                break;
            }
            judged_by.push(i);
        }
        let how = forms.first.as_ref().map_or("", |c| c.how.as_str());
        for i in judged_by {
            let (requirement, obligation, trial) = &citing[i];
            findings.push(unnoticed(runner, requirement, obligation, trial, how));
        }
    }
    findings
}

/// The finding for a change in `obligation`'s cited code that none of its tests fails.
fn unnoticed(
    runner: &Runner,
    requirement: &Requirement,
    obligation: &Obligation,
    trial: &Trial,
    how: &str,
) -> GateFinding {
    let tests: Vec<&str> = trial.tests.iter().map(|t| t.id.as_str()).collect();
    let first = obligation
        .test_refs
        .first()
        .map_or(tests[0], String::as_str);
    let (path, line) = crate::deep::red_green::test_place(runner, first);
    GateFinding::new(
        red_green::UNNOTICED,
        format!(
            "the tests of {} pass with a cited change: {how}",
            obligation.id
        ),
        format!(
            "{} cites {} and tests {}. With one site of the cited code changed in a copy of the \
             work tree ({how}), every one of them still passes: what that code does is not \
             checked by any test of the obligation (an assertion missing or weakened, or code \
             no behaviour needs).",
            obligation.id,
            obligation.code_refs.join(", "),
            tests.join(", "),
        ),
    )
    .at(path, line)
    .requirement(&requirement.id)
    .obligation(&obligation.id)
}

/// Every change at a site of `obligation`'s cited lines, once each (cited ranges may overlap),
/// with a key naming the site.
fn changes(runner: &Runner, obligation: &Obligation) -> Vec<(String, Neutralized)> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for code_ref in &obligation.code_refs {
        let Some(Cited {
            path,
            lines: [a, b],
            lang,
            source,
        }) = cited(runner, code_ref)
        else {
            continue;
        };
        for op in OPERATORS {
            for m in gatebench_lang::mutations(lang, &source, op).unwrap_or_default() {
                if m.lines[0] < a || b < m.lines[1] {
                    continue;
                }
                let key = format!("{path}\0{}\0{}", <&str>::from(op), m.site);
                if !seen.insert(key.clone()) {
                    continue;
                }
                out.push((
                    key,
                    Neutralized {
                        path: path.clone(),
                        text: gatebench_lang::apply(&source, &m.edits),
                        how: format!("{path}:{}: {}", m.lines[0], m.description),
                    },
                ));
            }
        }
    }
    out
}
