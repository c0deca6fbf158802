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

#[test]
fn a_hollow_test_does_not_hide_behind_a_sibling_that_fails() {
    // REQ-001-B01 gains a second test that calls the code and asserts nothing; its sibling still
    // fails without the code, so judged together the obligation's tests look verified.
    const HOLLOW: &str = "test_cancel_returns_the_subscription";
    let cited = format!("{TESTS}::{HOLLOW}");
    let mut golden = Golden::new();
    golden
        .replace(
            TESTS,
            "\n\ndef test_non_owner_is_refused",
            &format!("\n\ndef {HOLLOW}():\n    cancel(Sub(\"alice\"), \"alice\")\n\n\ndef test_non_owner_is_refused"),
        )
        .replace(
            &feature("evidence/unit.log"),
            "tests/test_cancel.py::test_non_owner_is_refused PASSED",
            &format!("{cited} PASSED [ 66%]\ntests/test_cancel.py::test_non_owner_is_refused PASSED"),
        )
        .replace(&feature("evidence/unit.log"), "2 passed", "3 passed")
        .edit_json(&feature("receipts/tests/unit.json"), |v| {
            v["obligations"][0]["test_ids"]
                .as_array_mut()
                .expect("test ids")
                .push(HOLLOW.into());
        });
    cite(&mut golden, "test_refs", &cited);
    let repo = golden.build();
    assert_pass(&repo.gate());
    let report = deep(&repo);
    let found = findings_of(&report, "red-green");
    assert_eq!(found.len(), 1, "{}", describe(&report));
    assert!(found[0].title.contains(HOLLOW), "{}", describe(&report));
    assert_eq!(found[0].obligation_id.as_deref(), Some("REQ-001-B01"));
    let at = found[0].location.as_ref().expect("a location");
    assert_eq!(at.path, TESTS);
    assert_eq!(
        at.line,
        Some(line_of(&repo.read(TESTS), &format!("def {HOLLOW}")))
    );
}

#[test]
fn cited_code_that_no_test_of_the_obligation_needs_is_a_finding() {
    // REQ-001-B01 also cites a function its test never reaches: the test still fails without
    // `cancel`, so it verifies something, but not everything the obligation claims.
    const DESCRIBE: &str = "src/subscription/cancel.py:15-16";
    let mut golden = Golden::new();
    golden.replace(
        CODE,
        "    return subscription\n",
        "    return subscription\n\n\ndef describe(subscription):\n    return f\"{subscription.owner}: {subscription.status}\"\n",
    );
    cite(&mut golden, "code_refs", DESCRIBE);
    let repo = golden.build();
    assert_pass(&repo.gate());
    let report = deep(&repo);
    let found = findings_of(&report, "red-green");
    assert_eq!(found.len(), 1, "{}", describe(&report));
    assert!(found[0].title.contains(DESCRIBE), "{}", describe(&report));
    assert_eq!(found[0].obligation_id.as_deref(), Some("REQ-001-B01"));
}

/// `reference` added to REQ-001-B01's `field` (`code_refs`, `test_refs`) in the requirements and
/// the traceability matrix alike.
fn cite(golden: &mut Golden, field: &'static str, reference: &str) {
    for ledger in ["requirements.json", "traceability.json"] {
        let reference = reference.to_owned();
        golden.edit_json(&feature(ledger), move |v| {
            let first = if ledger == "requirements.json" {
                &mut v["requirements"][0]["obligations"][0]
            } else {
                &mut v["rows"][0]
            };
            first[field]
                .as_array_mut()
                .expect("a list of refs")
                .push(reference.into());
        });
    }
}

#[test]
fn a_receipts_command_that_fails_now_is_a_finding_though_no_claimed_test_fails() {
    // The change broke a test no receipt names: every claimed test still passes, the command the
    // receipt says exited 0 does not.
    let repo = Golden::new()
        .replace(
            TESTS,
            "\n\ndef test_non_owner_is_refused",
            "\n\ndef test_cancel_keeps_the_owner():\n    assert cancel(Sub(\"alice\"), \"alice\").owner == \"bob\"\n\n\ndef test_non_owner_is_refused",
        )
        .build();
    assert_pass(&repo.gate());
    let report = deep(&repo);
    let finding = expect_finding(
        &report,
        "test-rerun",
        "specs/subscription-cancel/receipts/tests/unit.json",
    );
    assert!(
        finding.description.contains("test_cancel_keeps_the_owner"),
        "{}",
        describe(&report)
    );
    assert_eq!(finding.obligation_id.as_deref(), Some("REQ-001-B01"));
}

/// The golden with a side effect in `cancel` (an event recorded) that REQ-001-B01 cites; its test
/// asserts only the status.
fn with_event() -> Golden {
    let mut golden = Golden::new();
    golden
        .replace(
            CODE,
            "    subscription.status = \"cancelled\"\n",
            "    subscription.status = \"cancelled\"\n    subscription.events.append(\"cancelled\")\n",
        )
        .replace(
            TESTS,
            "        self.status = \"active\"\n",
            "        self.status = \"active\"\n        self.events = []\n",
        );
    golden
}

/// The findings of the adequacy rule (one site of cited code changed, no test fails).
fn unnoticed(report: &Report) -> Vec<&gatebench_report::Finding> {
    report
        .findings
        .iter()
        .filter(|f| f.rule.as_deref().is_some_and(|r| r.contains("unnoticed")))
        .collect()
}

#[test]
fn a_cited_side_effect_no_test_checks_is_a_finding_though_the_test_fails_without_the_code() {
    // The test kept its status assertion and lost the one on the event: it still fails with
    // `cancel` quieted (red-green is satisfied), not with the event's call deleted.
    let repo = with_event().build();
    assert_pass(&repo.gate());
    let report = deep(&repo);
    assert!(
        findings_of(&report, "red-green")
            .iter()
            .all(|f| !f.title.contains("neutralized")),
        "{}",
        describe(&report)
    );
    let found = unnoticed(&report);
    assert_eq!(found.len(), 1, "{}", describe(&report));
    assert!(
        found[0].title.contains("subscription.events.append"),
        "{}",
        describe(&report)
    );
    assert_eq!(found[0].obligation_id.as_deref(), Some("REQ-001-B01"));
    assert_eq!(
        found[0].location.as_ref().map(|l| l.path.as_str()),
        Some(TESTS)
    );
}

#[test]
fn a_cited_side_effect_its_test_asserts_passes() {
    let report = deep(
        &with_event()
            .replace(
                TESTS,
                "    assert cancel(Sub(\"alice\"), \"alice\").status == \"cancelled\"\n",
                "    cancelled = cancel(Sub(\"alice\"), \"alice\")\n    assert cancelled.status == \"cancelled\"\n    assert cancelled.events == [\"cancelled\"]\n",
            )
            .build(),
    );
    assert_pass(&report);
}

#[test]
fn the_costliest_check_does_not_run_for_work_that_already_fails() {
    // The event is unchecked and the test asserts nothing at all: red-green fails the work, so no
    // site-by-site runs are made.
    let mut golden = with_event();
    golden.replace(
        TESTS,
        "    assert cancel(Sub(\"alice\"), \"alice\").status == \"cancelled\"",
        "    cancel(Sub(\"alice\"), \"alice\")",
    );
    let report = deep(&golden.build());
    assert!(!findings_of(&report, "red-green").is_empty());
    assert!(unnoticed(&report).is_empty(), "{}", describe(&report));
}

#[test]
fn each_case_of_a_parametrized_test_is_the_test_its_ref_names() {
    use crate::deep::red_green::names;
    let test_ref = "tests/test_refund.py::test_refund_boundaries";
    assert!(names(
        "tests/test_refund.py::test_refund_boundaries[3000-start0-when0-3000]",
        test_ref
    ));
    assert!(names(
        "tests/test_refund.py::test_refund_boundaries",
        test_ref
    ));
    assert!(!names(
        "tests/test_refund.py::test_refund_boundaries_rounding[a]",
        test_ref
    ));
}
