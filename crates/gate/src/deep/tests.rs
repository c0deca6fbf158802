//! Deep mode on the test golden (`testutil.rs`, a real pytest project): each check fails on the
//! omission it exists for, with a ledger that agrees with itself (light mode passes), and the
//! golden passes; the repository is never changed; a second run of an unchanged repository runs
//! nothing.

use crate::deep::{cached_runs, executed_on_this_thread};
use crate::options::{Depth, GateOptions};
use crate::run::run_gate;
use crate::testutil::*;
use gatebench_report::Report;

const TESTS: &str = "tests/test_cancel.py";
const CODE: &str = "src/subscription/cancel.py";

fn deep(repo: &TestRepo) -> Report {
    run_gate(
        repo.path(),
        &GateOptions {
            depth: Depth::Deep,
            ..GateOptions::default()
        },
    )
}

#[test]
fn the_golden_passes_deep_and_reports_its_depth() {
    let repo = Golden::new().build();
    let report = deep(&repo);
    assert_pass(&report);
    assert_eq!(report.scope.depth, "deep");
    assert_eq!(repo.gate().scope.depth, "light");
}

#[test]
fn a_test_that_asserts_nothing_fails_red_green_only() {
    let repo = Golden::new()
        .replace(
            TESTS,
            "    assert cancel(Sub(\"alice\"), \"alice\").status == \"cancelled\"",
            "    cancel(Sub(\"alice\"), \"alice\")",
        )
        .build();
    // The lying agent's ledger agrees with itself: light mode cannot tell.
    assert_pass(&repo.gate());
    let report = deep(&repo);
    let finding = expect_finding(&report, "red-green", TESTS);
    assert_eq!(
        finding.obligation_id.as_deref(),
        Some("REQ-001-B01"),
        "{}",
        describe(&report)
    );
    assert!(
        findings_of(&report, "test-rerun").is_empty(),
        "{}",
        describe(&report)
    );
}

#[test]
fn broken_behaviour_with_agreeing_receipts_fails_when_the_tests_run_again() {
    let repo = Golden::new()
        .replace(
            CODE,
            "subscription.status = \"cancelled\"",
            "subscription.status = \"active\"",
        )
        .build();
    assert_pass(&repo.gate());
    let report = deep(&repo);
    let finding = expect_finding(
        &report,
        "test-rerun",
        "specs/subscription-cancel/receipts/tests/unit.json",
    );
    assert_eq!(finding.obligation_id.as_deref(), Some("REQ-001-B01"));
    assert!(finding.title.contains("fails"), "{}", describe(&report));
}

#[test]
fn a_skipped_test_is_no_pass_even_in_light_mode() {
    let repo = Golden::new()
        .replace(
            TESTS,
            "def test_non_owner_is_refused",
            "@pytest.mark.skip(reason=\"flaky on CI\")\ndef test_non_owner_is_refused",
        )
        .build();
    let light = repo.gate();
    let finding = expect_finding(
        &light,
        "obligation-test-closure",
        "specs/subscription-cancel/requirements.json",
    );
    assert!(
        finding.description.contains("@pytest.mark.skip"),
        "{}",
        describe(&light)
    );
    let report = deep(&repo);
    assert!(
        findings_of(&report, "test-rerun")
            .iter()
            .any(|f| f.title.contains("is skipped")),
        "{}",
        describe(&report)
    );
}

#[test]
fn a_commented_out_test_whose_name_survives_is_no_test() {
    let repo = Golden::new()
        .replace(
            TESTS,
            "def test_non_owner_is_refused():\n    with pytest.raises(Forbidden):\n        cancel(Sub(\"alice\"), \"bob\")\n",
            "# def test_non_owner_is_refused():\n#     with pytest.raises(Forbidden):\n#         cancel(Sub(\"alice\"), \"bob\")\n",
        )
        .build();
    let light = repo.gate();
    let finding = expect_finding(
        &light,
        "obligation-test-closure",
        "specs/subscription-cancel/requirements.json",
    );
    assert!(
        finding.description.contains("defines no test"),
        "{}",
        describe(&light)
    );
}

#[test]
fn deep_mode_changes_nothing_and_a_second_run_executes_nothing() {
    let repo = Golden::new()
        .replace(
            CODE,
            "        raise Forbidden(\"only the owner may cancel\")",
            "        raise Forbidden(\"only owners may cancel\")",
        )
        .build();
    let before = repo.read(CODE);
    let status = || {
        std::process::Command::new("git")
            .args(["status", "--porcelain", "--ignored"])
            .current_dir(repo.path())
            .output()
            .expect("git status")
            .stdout
    };
    let clean = status();
    assert_pass(&deep(&repo));
    assert_eq!(repo.read(CODE), before);
    assert_eq!(status(), clean);
    let first = executed_on_this_thread();
    assert!(first > 0, "the first deep run executed nothing");
    let (_, hits) = cached_runs();
    assert_pass(&deep(&repo));
    assert_eq!(
        executed_on_this_thread(),
        first,
        "the second run executed a suite"
    );
    assert!(cached_runs().1 > hits);
}
