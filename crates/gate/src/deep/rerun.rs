//! `test-rerun`: every test receipt's command run again in the work copy, and compared test by
//! test with what the receipt claims. A claimed pass that fails now, or does not run (absent,
//! skipped, ignored, expected to fail, to-do), is a finding at the receipt and its obligation; so
//! is a command the receipt says exited 0 that fails now, though only tests it claims nothing of
//! fail; a command that cannot run is one too: nothing it claims was verified.

use std::sync::Arc;

use gatebench_suite::{SuiteCommand, SuiteRun, TestResult as Ran};

use crate::check::rules::test_rerun;
use crate::deep::runner::{Runner, FIRST_TIMEOUT};
use crate::finding::GateFinding;
use crate::ledger::{TestReceipt, TestResult};
use crate::load::{quoted, FeatureLedger, TextFile};
use crate::validators::receipt_log::leaf;

/// A receipt's command as it ran (`receipt`: its path in the feature folder), which the red-green
/// check narrows and runs again.
pub struct Executed {
    pub receipt: String,
    pub command: SuiteCommand,
    pub run: Arc<SuiteRun>,
}

/// The findings of `feature`'s test receipts, and the commands that ran.
pub fn findings(runner: &mut Runner, feature: &FeatureLedger) -> (Vec<GateFinding>, Vec<Executed>) {
    let mut findings = Vec::new();
    let mut ran = Vec::new();
    for (name, receipt) in &feature.tests {
        let Some(receipt) = receipt else { continue };
        let file = &receipt.file;
        let value = &receipt.value;
        let at_command = file.line_of("\"command\"");
        let not_runnable = |why: String| {
            GateFinding::new(
                test_rerun::NOT_RUNNABLE,
                format!("the command of {} cannot be run again", file.path),
                format!(
                    "{} records `{}`; deep mode runs it again in a copy of the work tree and it {why}: \
                     nothing the receipt claims was verified.",
                    file.path, value.command
                ),
            )
            .at(&file.path, at_command)
        };
        let command = match SuiteCommand::parse(&value.command) {
            Ok(c) => c,
            Err(e) => {
                findings.push(not_runnable(format!("cannot be read ({e})")));
                continue;
            }
        };
        if let Err(e) = gatebench_suite::check_available(&command) {
            findings.push(not_runnable(format!("cannot start ({e})")));
            continue;
        }
        let run = runner.run(&command, None, FIRST_TIMEOUT);
        if run.timed_out() {
            findings.push(not_runnable(format!(
                "did not finish in {} s",
                FIRST_TIMEOUT.as_secs()
            )));
            continue;
        }
        if let Some(e) = &run.record.spawn_error {
            findings.push(not_runnable(format!("could not start ({e})")));
            continue;
        }
        let before = findings.len();
        for tested in &value.obligations {
            if tested.result != TestResult::Pass {
                continue;
            }
            for claimed in &tested.test_ids {
                let now = run
                    .parsed
                    .tests
                    .iter()
                    .filter(|t| {
                        leaf(&t.id) == leaf(claimed) || t.id.ends_with(&format!(" > {claimed}"))
                    })
                    .map(|t| t.result)
                    .min_by_key(|r| rank(*r));
                let (rule, why) = match now {
                    Some(Ran::Passed) => continue,
                    Some(Ran::Failed) => (test_rerun::FAILS, "fails".to_owned()),
                    Some(Ran::UnexpectedPass) => {
                        (test_rerun::NOT_RUN, "is marked expected to fail".to_owned())
                    }
                    Some(other) => (test_rerun::NOT_RUN, format!("is {}", describe(other))),
                    None if run.parsed.build_failed => {
                        (test_rerun::FAILS, "does not build".to_owned())
                    }
                    None => (test_rerun::NOT_RUN, "does not run".to_owned()),
                };
                findings.push(
                    GateFinding::new(
                        rule,
                        format!("{claimed} of {} {why} when its command runs again", tested.id),
                        format!(
                            "{} claims {claimed} passed for {}; run again (`{}`) in a copy of the \
                             work tree, it {why}. A claim the code does not bear out is not evidence.",
                            file.path,
                            tested.id,
                            value.command
                        ),
                    )
                    .at(&file.path, file.line_of(&quoted(claimed)))
                    .obligation(&tested.id),
                );
            }
        }
        if findings.len() == before {
            findings.extend(command_fails(file, value, &run));
        }
        ran.push(Executed {
            receipt: name.clone(),
            command,
            run,
        });
    }
    (findings, ran)
}

/// A receipt whose command recorded exit 0 and fails now: the command itself must still succeed,
/// even when only tests it claims nothing of fail.
fn command_fails(file: &TextFile, value: &TestReceipt, run: &SuiteRun) -> Option<GateFinding> {
    if value.exit_code != 0 || run.record.exit_code == Some(0) {
        return None;
    }
    let failing: Vec<&str> = run
        .parsed
        .tests
        .iter()
        .filter(|t| t.result == Ran::Failed)
        .map(|t| t.id.as_str())
        .collect();
    let what = if failing.is_empty() {
        "no test fails by name".to_owned()
    } else {
        format!("failing: {}", failing.join(", "))
    };
    let code = run
        .record
        .exit_code
        .map_or_else(|| "without a code".to_owned(), |c| c.to_string());
    let mut finding = GateFinding::new(
        test_rerun::FAILS,
        format!("the command of {} fails when it runs again", file.path),
        format!(
            "{} records that `{}` exited 0; run again in a copy of the work tree, it exits {code} \
             ({what}). The code no longer passes the tests this receipt vouches for.",
            file.path, value.command
        ),
    )
    .at(&file.path, file.line_of("\"exit_code\""));
    if let Some(first) = value.obligations.first() {
        finding = finding.obligation(&first.id);
    }
    Some(finding)
}

/// Which of several results of one name speaks: a failure before anything else.
fn rank(r: Ran) -> u8 {
    match r {
        Ran::Failed => 0,
        Ran::UnexpectedPass => 1,
        Ran::Skipped | Ran::ExpectedFailure | Ran::Todo => 2,
        Ran::Passed => 3,
    }
}

fn describe(r: Ran) -> &'static str {
    match r {
        Ran::Skipped => "skipped",
        Ran::ExpectedFailure => "marked expected to fail",
        Ran::Todo => "marked to-do",
        Ran::Failed => "failing",
        Ran::UnexpectedPass => "marked expected to fail",
        Ran::Passed => "passing",
    }
}
