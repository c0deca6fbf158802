//! End-to-end tests of the reference gate: the golden passes, and each validator reports the one
//! thing a test breaks, at the place a person should open.
//!
//! Most tests are rows ([`gate_rows!`]): edits to the golden (`remove`, `set`, `replace`,
//! `edit_json` before it is built; `worktree_write`, `worktree_replace` after) and what the report
//! must say (`Pass`, `IssuesFound`, a `finding` of a check at a path with its line, title,
//! description, obligation, requirement or class). Tests of another shape (scope, status, the
//! workflow's schema, a linked worktree, counts) are functions after the rows.

use serde_json::{json, Value};

use super::testutil::Expect::{IssuesFound, Pass};
use super::testutil::*;
use crate::{run_gate, workflow_schema, GateOptions};
use gatebench_report::{OverallResult, SkillStatus, Status};

/// Each row a test named after it: the golden edited, the gate run, every expectation checked
/// ([`check_row`]).
macro_rules! gate_rows {
    ($(
        $(#[$meta:meta])*
        $name:ident {
            edits: [$($edit:expr),* $(,)?],
            expect: [$($expect:expr),* $(,)?] $(,)?
        }
    )*) => {
        $(
            $(#[$meta])*
            #[test]
            fn $name() {
                check_row(vec![$($edit),*], vec![$(Expect::from($expect)),*]);
            }
        )*
    };
}

gate_rows! {
    // --- task-set-complete ----------------------------------------------------------------------

    a_task_without_a_task_state_is_reported_at_the_task {
        edits: [remove(feature("task-states/T2.state.json"))],
        expect: [finding("task-set-complete", feature("tasks/T2.md")).line(1).title("T2")],
    }
    a_task_state_without_a_task_is_reported_at_the_state {
        edits: [worktree_write(
            feature("task-states/T3.state.json"),
            r#"{"schema_version": 1, "task_id": "T3", "status": "done"}"#,
        )],
        expect: [finding("task-set-complete", feature("task-states/T3.state.json"))],
    }

    // --- all-task-states-done -------------------------------------------------------------------

    a_task_that_is_not_done_is_reported_even_when_the_report_says_pass {
        edits: [edit_json(feature("task-states/T2.state.json"), |state| {
            state["status"] = json!("pending");
        })],
        expect: [
            holds(feature("verify-report.md"), "PASS"),
            finding("all-task-states-done", feature("task-states/T2.state.json"))
                .line_of("\"status\"")
                .title("pending"),
        ],
    }

    // --- task-handoffs-pass ---------------------------------------------------------------------

    a_task_without_a_review_receipt_fails_its_handoff {
        edits: [remove(feature("receipts/reviews/T2.json"))],
        expect: [finding("task-handoffs-pass", feature("tasks/T2.md")).title("review")],
    }
    a_task_without_an_implementation_receipt_fails_its_handoff {
        edits: [remove(feature("receipts/implementations/T1.json"))],
        expect: [finding("task-handoffs-pass", feature("tasks/T1.md")).title("implementation")],
    }
    a_failed_task_review_fails_the_handoff_at_the_review_receipt {
        edits: [edit_json(feature("receipts/reviews/T1.json"), |review| {
            review["verdict"] = json!("fail");
        })],
        expect: [finding("task-handoffs-pass", feature("receipts/reviews/T1.json"))],
    }

    // --- obligation-task-closure ----------------------------------------------------------------

    an_obligation_its_task_does_not_list_is_reported_at_the_obligation {
        edits: [replace(feature("tasks/T2.md"), "obligations: [REQ-001-B02]", "obligations: []")],
        expect: [finding("obligation-task-closure", feature("requirements.json"))
            .obligation("REQ-001-B02")
            .requirement("REQ-001")],
    }
    a_task_that_lists_an_unknown_obligation_is_reported_at_the_task {
        edits: [replace(
            feature("tasks/T2.md"),
            "obligations: [REQ-001-B02]",
            "obligations: [REQ-001-B02, REQ-001-B09]",
        )],
        expect: [finding("obligation-task-closure", feature("tasks/T2.md"))
            .obligation("REQ-001-B09")],
    }

    // --- requirement-code-closure ---------------------------------------------------------------

    a_code_ref_past_the_end_of_its_file_is_reported_at_the_line_of_the_ref {
        edits: [
            replace(feature("requirements.json"), "cancel.py:9-10", "cancel.py:9-99"),
            replace(feature("traceability.json"), "cancel.py:9-10", "cancel.py:9-99"),
        ],
        expect: [finding("requirement-code-closure", feature("requirements.json"))
            .obligation("REQ-001-B02")
            .line_of("cancel.py:9-99")
            .description("12 lines")],
    }
    a_code_ref_to_a_file_that_does_not_exist_is_reported {
        edits: [
            replace(
                feature("requirements.json"),
                "src/subscription/cancel.py:9-10",
                "src/subscription/owner.py:1-5",
            ),
            replace(
                feature("traceability.json"),
                "src/subscription/cancel.py:9-10",
                "src/subscription/owner.py:1-5",
            ),
        ],
        expect: [finding("requirement-code-closure", feature("requirements.json"))
            .description("does not exist")],
    }

    // --- obligation-test-closure ----------------------------------------------------------------

    a_test_ref_whose_test_does_not_exist_is_reported_at_the_ref {
        edits: [replace(
            "tests/test_cancel.py",
            "def test_non_owner_is_refused",
            "def test_non_owner_is_refused_later",
        )],
        expect: [finding("obligation-test-closure", feature("requirements.json"))
            .obligation("REQ-001-B02")
            .line_of("::test_non_owner_is_refused")],
    }
    a_test_ref_to_a_missing_file_is_reported {
        edits: [
            replace(
                feature("requirements.json"),
                "tests/test_cancel.py::test_owner",
                "tests/test_gone.py::test_owner",
            ),
            replace(
                feature("traceability.json"),
                "tests/test_cancel.py::test_owner",
                "tests/test_gone.py::test_owner",
            ),
        ],
        expect: [finding("obligation-test-closure", feature("requirements.json"))
            .obligation("REQ-001-B01")],
    }

    // --- obligation-evidence-closure ------------------------------------------------------------

    an_obligation_its_receipt_does_not_cover_has_no_evidence {
        edits: [edit_json(feature("receipts/tests/unit.json"), |receipt| {
            receipt["obligations"].as_array_mut().unwrap().pop();
        })],
        expect: [finding("obligation-evidence-closure", feature("requirements.json"))
            .obligation("REQ-001-B02")
            .description("does not list REQ-001-B02")],
    }
    a_failed_test_command_is_reported_at_the_receipt {
        edits: [edit_json(feature("receipts/tests/unit.json"), |receipt| {
            receipt["exit_code"] = json!(1);
        })],
        expect: [finding("obligation-evidence-closure", feature("receipts/tests/unit.json"))
            .class("test-failure")],
    }
    an_obligation_that_is_not_passing_is_reported {
        edits: [
            edit_json(feature("requirements.json"), |requirements| {
                obligation_mut(requirements, "REQ-001-B01")["status"] =
                    json!("candidate_implemented");
            }),
            edit_json(feature("traceability.json"), |traceability| {
                traceability["rows"][0]["verdict"] = json!("candidate_implemented");
            }),
        ],
        expect: [finding("obligation-evidence-closure", feature("requirements.json"))
            .obligation("REQ-001-B01")],
    }

    // --- evidence-bound-to-current-tree ---------------------------------------------------------

    /// The obligations lose their evidence too.
    stale_evidence_is_reported_against_the_receipt_that_binds_an_old_tree {
        edits: [worktree_replace("src/subscription/cancel.py", "cancelled", "canceled")],
        expect: [
            finding("evidence-bound-to-current-tree", feature("receipts/tests/unit.json"))
                .line_of("\"git_tree\""),
            finding("evidence-bound-to-current-tree", feature("receipts/reviews/T1.json")),
            finding(
                "evidence-bound-to-current-tree",
                feature("receipts/implementations/T2.json"),
            ),
            any_for("obligation-evidence-closure", "REQ-001-B01"),
        ],
    }
    a_receipt_bound_by_the_current_diff_alone_passes {
        edits: [edit_json(feature("receipts/tests/unit.json"), bind_by_diff_alone)],
        expect: [holds(feature("receipts/tests/unit.json"), "\"diff_sha256\": \"sha256:"), Pass],
    }
    a_current_tree_with_a_wrong_diff_is_stale_and_a_receipt_binding_nothing_is_reported {
        edits: [
            edit_json(feature("receipts/tests/unit.json"), |receipt| {
                receipt["diff_sha256"] = json!(format!("sha256:{}", "0".repeat(64)));
            }),
            edit_json(feature("receipts/reviews/T1.json"), |receipt| {
                receipt.as_object_mut().expect("object").remove("git_tree");
            }),
        ],
        expect: [
            finding("evidence-bound-to-current-tree", feature("receipts/tests/unit.json"))
                .title_ends("binds an old diff"),
            finding("evidence-bound-to-current-tree", feature("receipts/reviews/T1.json"))
                .title_ends("binds no source tree and no diff"),
        ],
    }
    a_change_inside_the_ledger_does_not_make_evidence_stale {
        edits: [worktree_write(feature("notes.md"), "a note\n")],
        expect: [Pass],
    }

    // --- review-receipts-pass -------------------------------------------------------------------

    a_missing_evaluation_from_a_required_reviewer_is_reported {
        edits: [remove(feature("receipts/evaluations/omission-hunter.json"))],
        expect: [finding(
            "review-receipts-pass",
            feature("receipts/evaluations/omission-hunter.json"),
        )],
    }
    a_failed_evaluation_is_reported_at_its_receipt {
        edits: [edit_json(feature("receipts/evaluations/omission-hunter.json"), |evaluation| {
            evaluation["verdict"] = json!("fail");
        })],
        expect: [finding(
            "review-receipts-pass",
            feature("receipts/evaluations/omission-hunter.json"),
        )],
    }

    // --- diff-within-ownership ------------------------------------------------------------------

    a_committed_change_no_task_owns_is_reported_at_the_file {
        edits: [set("src/admin.py", "def bulk_cancel():\n    pass\n")],
        expect: [finding("diff-within-ownership", "src/admin.py")],
    }
    an_untracked_file_no_task_owns_is_reported {
        edits: [worktree_write("scripts/migrate.sh", "echo\n")],
        expect: [finding("diff-within-ownership", "scripts/migrate.sh")],
    }
    an_approved_scope_change_owns_the_file {
        edits: [
            set("src/admin.py", "def bulk_cancel():\n    pass\n"),
            edit_json(feature("receipts/approvals/spec-approval.json"), |approval| {
                approval["scope_changes"] = json!(["src/admin.py"]);
            }),
        ],
        expect: [Pass],
    }
    /// T2 owns tests/** only; its implementation receipt cites src/subscription/cancel.py, which
    /// T1 owns: T2 changed a file outside its ownership, although some task owns it.
    a_file_a_task_cites_but_only_another_task_owns_is_reported_at_the_file {
        edits: [edit_json(feature("receipts/implementations/T2.json"), cite_cancel_py)],
        expect: [finding("diff-within-ownership", "src/subscription/cancel.py")
            .title("by task T2")
            .title_ends("outside that task's ownership")
            .description("Only T1 owns it")],
    }
    a_file_cited_by_its_owner_as_well_is_owned {
        edits: [
            edit_json(feature("receipts/implementations/T1.json"), cite_cancel_py),
            edit_json(feature("receipts/implementations/T2.json"), cite_cancel_py),
        ],
        expect: [Pass],
    }
    a_cited_file_an_approved_scope_change_lists_is_owned {
        edits: [
            edit_json(feature("receipts/implementations/T2.json"), cite_cancel_py),
            edit_json(feature("receipts/approvals/spec-approval.json"), |approval| {
                approval["scope_changes"] = json!(["src/subscription/cancel.py"]);
            }),
        ],
        expect: [Pass],
    }
    ignored_files_are_neither_changes_nor_part_of_the_source_tree {
        edits: [
            set(".gitignore", "build/\n"),
            replace(
                feature("tasks/T2.md"),
                "owns: [\"tests/**\"]",
                "owns: [\"tests/**\", \".gitignore\"]",
            ),
            worktree_write("build/out.txt", "artifact\n"),
        ],
        expect: [Pass],
    }

    // --- approval-current -----------------------------------------------------------------------

    a_spec_changed_after_approval_is_reported_at_the_spec {
        edits: [worktree_write(
            feature("spec.md"),
            "# Cancel a subscription\n\nAnyone can cancel.\n",
        )],
        expect: [finding("approval-current", feature("spec.md")).title("spec-approval")],
    }
    /// Located at the first artifact that needed the approval.
    a_feature_without_approvals_is_reported {
        edits: [remove(feature("receipts/approvals/spec-approval.json"))],
        expect: [finding("approval-current", feature("spec.md")).title("has no approval")],
    }
    an_approval_that_leaves_out_the_plan_is_reported_at_the_plan {
        edits: [edit_json(feature("receipts/approvals/spec-approval.json"), |approval| {
            approval["artifacts"].as_object_mut().unwrap().remove("plan.md");
        })],
        expect: [finding("approval-current", feature("plan.md"))],
    }
    a_superseded_obligation_without_approval_is_reported {
        edits: [
            edit_json(feature("requirements.json"), |requirements| {
                let obligation = obligation_mut(requirements, "REQ-001-B02");
                obligation["status"] = json!("superseded");
                obligation["superseded_by"] = json!("REQ-001-B01");
                obligation["reason"] = json!("merged into B01");
            }),
            edit_json(feature("traceability.json"), |traceability| {
                traceability["rows"][1]["verdict"] = json!("superseded");
            }),
        ],
        expect: [finding("approval-current", feature("requirements.json"))
            .obligation("REQ-001-B02")],
    }

    // --- convergence-pass -----------------------------------------------------------------------

    a_partially_converged_obligation_is_reported_at_the_convergence_report {
        edits: [edit_json(feature("convergence-report.json"), |report| {
            report["obligations"][1]["classification"] = json!("partial");
        })],
        expect: [finding("convergence-pass", feature("convergence-report.json"))
            .obligation("REQ-001-B02")],
    }
    unapproved_unrequested_code_is_reported_at_that_code {
        edits: [edit_json(feature("convergence-report.json"), |report| {
            report["unrequested"] = json!([{"path": "src/subscription/cancel.py",
                "description": "a bulk cancel path", "approved": false}]);
        })],
        expect: [finding("convergence-pass", "src/subscription/cancel.py")],
    }

    // --- no-blocking-findings -------------------------------------------------------------------

    an_open_high_finding_is_reported_at_the_finding_file {
        edits: [edit_json(feature("findings/FINDING-001.json"), |finding| {
            finding["status"] = json!("open");
        })],
        expect: [finding("no-blocking-findings", feature("findings/FINDING-001.json"))
            .obligation("REQ-001-B02")],
    }
    a_high_finding_closed_by_a_receipt_that_does_not_exist_is_reported {
        edits: [edit_json(feature("findings/FINDING-001.json"), |finding| {
            finding["closed_by"] = json!("receipts/tests/integration.json");
        })],
        expect: [finding("no-blocking-findings", feature("findings/FINDING-001.json"))],
    }
    an_evaluation_that_passes_with_an_open_blocker_is_reported {
        edits: [edit_json(feature("receipts/evaluations/omission-hunter.json"), |evaluation| {
            evaluation["findings"] = json!([{"severity": "BLOCKER",
                "obligation_id": "REQ-001-B02", "reason": "no rollback on failure"}]);
        })],
        expect: [finding(
            "no-blocking-findings",
            feature("receipts/evaluations/omission-hunter.json"),
        )],
    }
    a_finding_closed_by_a_receipt_about_another_obligation_is_reported {
        edits: [set(
            feature("findings/FINDING-001.json"),
            closed_finding("receipts/reviews/T2.json"),
        )],
        expect: [finding("no-blocking-findings", feature("findings/FINDING-001.json"))
            .title("not about its obligation")
            .line_of("\"closed_by\"")],
    }

    // --- detail-expansion -----------------------------------------------------------------------

    a_requirement_missing_a_detail_category_is_reported {
        edits: [edit_json(feature("requirements.json"), |requirements| {
            requirements["requirements"][0]["details"]
                .as_object_mut()
                .unwrap()
                .remove("idempotency");
        })],
        expect: [finding("detail-expansion", feature("requirements.json"))
            .title("idempotency")
            .requirement("REQ-001")],
    }
    an_applicable_category_without_an_obligation_is_reported_at_the_category {
        edits: [edit_json(feature("requirements.json"), |requirements| {
            requirements["requirements"][0]["details"]["atomicity"] =
                json!({"conclusion": "applicable"});
        })],
        expect: [finding("detail-expansion", feature("requirements.json"))
            .line_of("\"atomicity\"")],
    }
    a_category_that_requires_clarification_is_reported {
        edits: [edit_json(feature("requirements.json"), |requirements| {
            requirements["requirements"][0]["details"]["concurrency"] =
                json!({"conclusion": "requires_clarification"});
        })],
        expect: [finding("detail-expansion", feature("requirements.json")).title("clarification")],
    }
    a_not_applicable_category_without_a_reason_is_reported {
        edits: [edit_json(feature("requirements.json"), |requirements| {
            requirements["requirements"][0]["details"]["recovery"] =
                json!({"conclusion": "not_applicable"});
        })],
        expect: [finding("detail-expansion", feature("requirements.json"))],
    }

    // --- obligation-test-plan -------------------------------------------------------------------

    an_obligation_without_a_test_plan_is_reported {
        edits: [edit_json(feature("requirements.json"), |requirements| {
            obligation_mut(requirements, "REQ-001-B02")
                .as_object_mut()
                .unwrap()
                .remove("test_plan");
        })],
        expect: [finding("obligation-test-plan", feature("requirements.json"))
            .obligation("REQ-001-B02")],
    }
    a_test_plan_that_expects_nothing_is_reported {
        edits: [edit_json(feature("requirements.json"), |requirements| {
            obligation_mut(requirements, "REQ-001-B01")["test_plan"]["expected"] = json!([]);
        })],
        expect: [finding("obligation-test-plan", feature("requirements.json"))
            .obligation("REQ-001-B01")],
    }

    // --- traceability ---------------------------------------------------------------------------

    a_traceability_row_that_disagrees_with_the_requirements_is_reported_at_the_row {
        edits: [edit_json(feature("traceability.json"), |traceability| {
            traceability["rows"][1]["task_id"] = json!("T1");
        })],
        expect: [finding("traceability", feature("traceability.json"))
            .obligation("REQ-001-B02")
            .line_of("\"REQ-001-B02\"")],
    }
    an_obligation_without_a_traceability_row_is_reported {
        edits: [edit_json(feature("traceability.json"), |traceability| {
            traceability["rows"].as_array_mut().unwrap().pop();
        })],
        expect: [finding("traceability", feature("traceability.json")).obligation("REQ-001-B02")],
    }

    // --- ledger-schema --------------------------------------------------------------------------

    the_seeds_finding_and_obligation_fields_are_accepted_without_warning {
        edits: [
            edit_json(feature("requirements.json"), |requirements| {
                let obligation = obligation_mut(requirements, "REQ-001-B02");
                obligation["source"] = json!("convergence-finding");
                obligation["introduced_by"] = json!("FINDING-017");
            }),
            set(
                feature("findings/FINDING-017.json"),
                r#"{"schema_version": 1, "id": "FINDING-017", "severity": "LOW", "type": "missing-behavior",
"requirement_id": "REQ-001", "obligation_id": "REQ-001-B02", "status": "open",
"evidence": "no test for a refund timeout", "suggested_action": "create a fix task"}
"#,
            ),
        ],
        expect: [Pass],
    }
    a_missing_convergence_report_is_a_ledger_schema_finding {
        edits: [remove(feature("convergence-report.json"))],
        expect: [finding("ledger-schema", feature("convergence-report.json"))],
    }

    // --- worktree-isolation ---------------------------------------------------------------------

    a_plain_repository_that_claims_a_linked_worktree_is_reported {
        edits: [edit_json(feature("pipeline.state.json"), |state| {
            state["worktree"]["linked"] = json!(true);
        })],
        expect: [finding("worktree-isolation", feature("pipeline.state.json"))],
    }

    // --- workflow-drift -------------------------------------------------------------------------

    a_pipeline_at_an_undeclared_step_is_reported {
        edits: [replace(feature("pipeline.state.json"), "\"verification\"", "\"shipping\"")],
        expect: [finding("workflow-drift", feature("pipeline.state.json"))],
    }

    // --- acceptance-items -----------------------------------------------------------------------

    an_unchecked_acceptance_item_is_reported_at_its_line {
        edits: [replace(feature("tasks/T1.md"), "- [x] its test passes", "- [ ] its test passes")],
        expect: [finding("acceptance-items", feature("tasks/T1.md")).line_of("- [ ] its test")],
    }

    // --- verify-report.md never decides ---------------------------------------------------------

    a_report_that_says_pass_does_not_override_a_failed_validator {
        edits: [
            remove(feature("receipts/tests/unit.json")),
            set(feature("verify-report.md"), "# Verify\n\nAll validators: PASS\n"),
        ],
        expect: [IssuesFound],
    }

    // --- obligation-implemented -----------------------------------------------------------------

    a_stubbed_obligation_is_not_implemented_although_convergence_says_implemented {
        edits: [replace(
            "src/subscription/cancel.py",
            "    subscription.status = \"cancelled\"\n",
            "    # TODO(T1): mark the subscription cancelled\n",
        )],
        expect: [
            holds(feature("convergence-report.json"), "implemented"),
            finding("obligation-implemented", "src/subscription/cancel.py")
                .line(11)
                .title("REQ-001-B01"),
        ],
    }
    a_body_that_only_raises_not_implemented_is_a_stub {
        edits: [replace(
            "src/subscription/cancel.py",
            "    subscription.status = \"cancelled\"\n    return subscription\n",
            "    raise NotImplementedError\n\n",
        )],
        expect: [finding("obligation-implemented", "src/subscription/cancel.py")],
    }

    // --- unrequested-public-symbol --------------------------------------------------------------

    a_public_function_no_obligation_asks_for_is_unrequested {
        edits: [replace("src/subscription/cancel.py", "    return subscription\n", CANCEL_ALL)],
        expect: [finding("unrequested-public-symbol", "src/subscription/cancel.py")
            .line(15)
            .title("cancel_all")],
    }

    // --- test-receipt-log -----------------------------------------------------------------------

    a_claimed_test_its_log_never_ran_is_reported_at_the_claim {
        edits: [set(
            feature("evidence/unit.log"),
            "tests/test_cancel.py::test_owner_can_cancel PASSED [100%]\n======= 1 passed in 0.01s =======\n",
        )],
        expect: [finding("test-receipt-log", feature("receipts/tests/unit.json"))
            .line_of("\"test_non_owner_is_refused\"")
            .title("REQ-001-B02")],
    }
    a_log_whose_totals_disagree_with_its_lines_is_reported_at_the_log {
        edits: [replace(feature("evidence/unit.log"), "2 passed", "12 passed")],
        expect: [finding("test-receipt-log", feature("evidence/unit.log"))],
    }
    a_claimed_test_that_is_not_a_test_ref_of_the_obligation_is_reported {
        edits: [replace(
            feature("receipts/tests/unit.json"),
            "\"test_owner_can_cancel\"",
            "\"test_non_owner_is_refused\"",
        )],
        expect: [finding("test-receipt-log", feature("receipts/tests/unit.json"))
            .title("is not a test ref of REQ-001-B01")],
    }

    // --- task-dependencies ----------------------------------------------------------------------

    a_dependency_on_an_unknown_task_is_reported_at_the_entry {
        edits: [replace(feature("tasks/T2.md"), "depends_on: []", "depends_on: [T9]")],
        expect: [finding("task-dependencies", feature("tasks/T2.md"))
            .line_of("depends_on")
            .title("T9")],
    }
    a_dependency_chain_without_cycle_passes {
        edits: [replace(feature("tasks/T2.md"), "depends_on: []", "depends_on: [T1]")],
        expect: [Pass],
    }
}

/// A public function added after `cancel`, which no obligation asks for.
const CANCEL_ALL: &str = "    return subscription\n\n\ndef cancel_all(subscriptions, user):\n    \
                          return [cancel(s, user) for s in subscriptions]\n";

/// An implementation receipt that cites `src/subscription/cancel.py` (which T1 owns).
fn cite_cancel_py(receipt: &mut Value) {
    receipt["obligations"][0]["implementation_refs"] = json!(["src/subscription/cancel.py:9-10"]);
}

/// A test receipt bound by `diff_sha256` alone (`git_tree` null).
fn bind_by_diff_alone(receipt: &mut Value) {
    receipt["git_tree"] = Value::Null;
    receipt["diff_sha256"] = json!("{{diff-sha256}}");
}

// --- helpers of the tests below ----------------------------------------------------------------

fn obligation_mut<'a>(requirements: &'a mut Value, id: &str) -> &'a mut Value {
    requirements["requirements"][0]["obligations"]
        .as_array_mut()
        .expect("obligations")
        .iter_mut()
        .find(|obligation| obligation["id"] == id)
        .expect("obligation exists")
}

/// A repository with a committed change (cancel.py, on the branch), a staged one (README.md line
/// 2) and an unstaged one (tests/test_cancel.py line 1).
fn three_kinds_of_change() -> TestRepo {
    let repo = Golden::new().build();
    repo.stage("README.md", "# subscriptions\nstaged line\n");
    let test = repo.read("tests/test_cancel.py");
    repo.write("tests/test_cancel.py", &format!("# unstaged\n{test}"));
    repo
}

fn add_requirement_without_obligations(golden: &mut Golden) {
    golden.edit_json(&feature("requirements.json"), |requirements| {
        let mut second = requirements["requirements"][0].clone();
        second["id"] = json!("REQ-002");
        second["title"] = json!("Cancelled subscriptions are archived");
        second["obligations"] = json!([]);
        for (_, detail) in second["details"].as_object_mut().unwrap().iter_mut() {
            *detail = json!({"conclusion": "not_applicable", "reason": "stated by the spec"});
        }
        requirements["requirements"]
            .as_array_mut()
            .unwrap()
            .push(second);
    });
}

/// The golden with its test receipt bound by `diff_sha256` alone (`git_tree` null).
fn bound_by_diff() -> Golden {
    let mut golden = Golden::new();
    golden.edit_json(&feature("receipts/tests/unit.json"), bind_by_diff_alone);
    golden
}

/// Builds the golden, checks `main` out in the main work tree and the feature branch in a linked
/// worktree; returns the worktree's path (inside the repository's temp dir).
fn in_linked_worktree(golden: &Golden) -> (TestRepo, std::path::PathBuf) {
    let built = golden.build();
    let repo = git2::Repository::open(built.path()).unwrap();
    repo.set_head("refs/heads/main").unwrap();
    repo.checkout_head(Some(
        git2::build::CheckoutBuilder::new()
            .force()
            .remove_untracked(true),
    ))
    .unwrap();
    let feature_ref = repo.find_reference("refs/heads/feature").unwrap();
    let mut options = git2::WorktreeAddOptions::new();
    options.reference(Some(&feature_ref));
    let path = built.dir.path().join("wt");
    repo.worktree("wt", &path, Some(&options)).unwrap();
    (built, path)
}

fn with_workflow(workflow: &str) -> Golden {
    let mut golden = Golden::new();
    golden.set("templates/workflow.yaml", workflow);
    let schema = workflow_schema(workflow).unwrap();
    golden.set(
        "config/pipeline.schema.json",
        &serde_json::to_string_pretty(&schema).unwrap(),
    );
    golden.replace(
        &feature("tasks/T1.md"),
        "owns: [\"src/subscription/**\"]",
        "owns: [\"src/subscription/**\", \"templates/\", \"config/*.json\"]",
    );
    golden
}

fn closed_finding(closed_by: &str) -> String {
    format!(
        r#"{{"schema_version": 1, "id": "FINDING-001", "severity": "HIGH", "type": "missing-behavior",
"requirement_id": "REQ-001", "obligation_id": "REQ-001-B01", "status": "closed",
"evidence": "cancel did not set the status", "closed_by": "{closed_by}"}}
"#
    )
}

const WORKFLOW: &str = "steps:
  - id: executing
    validators: [task-set-complete, all-task-states-done, task-handoffs-pass,
                 requirement-task-closure, obligation-task-closure, review-receipts-pass,
                 diff-within-ownership]
  - id: verification
    validators: [requirement-code-closure, obligation-test-closure, obligation-evidence-closure,
                 evidence-bound-to-current-tree, approval-current, convergence-pass,
                 no-blocking-findings]
reviewers: [omission-hunter]
";

// --- tests of another shape -------------------------------------------------------------------

#[test]
fn the_golden_repository_passes_every_validator() {
    let repo = Golden::new().build();
    let report = repo.gate();
    assert_pass(&report);
    assert_eq!(report.status, Status::Ok);
    assert_eq!(report.error, None);
    assert!(report
        .skill_results
        .iter()
        .all(|skill| skill.status == SkillStatus::Passed));
}

#[test]
fn the_same_repository_gives_byte_identical_reports() {
    let mut golden = Golden::new();
    golden.remove(&feature("task-states/T2.state.json"));
    golden.replace(&feature("tasks/T1.md"), "- [x] its test", "- [ ] its test");
    let repo = golden.build();
    let first = serde_json::to_string_pretty(&repo.gate()).unwrap();
    let second = serde_json::to_string_pretty(&repo.gate()).unwrap();
    assert_eq!(first, second);
}

#[test]
fn findings_are_mirrored_as_issues_in_severity_order() {
    let mut golden = Golden::new();
    golden.remove(&feature("task-states/T2.state.json"));
    golden.replace(&feature("tasks/T1.md"), "- [x] its test", "- [ ] its test");
    let report = golden.build().gate();
    assert_eq!(report.findings.len(), report.issues.len());
    for (index, (finding, issue)) in report.findings.iter().zip(&report.issues).enumerate() {
        assert_eq!(issue.id, format!("VI-{}", index + 1));
        assert_eq!(issue.title, finding.title);
        assert_eq!(issue.severity, finding.severity);
        assert_eq!(finding.sources, vec!["gatebench-gate".to_owned()]);
    }
    let severities: Vec<u8> = report.findings.iter().map(|f| f.severity).collect();
    let mut sorted = severities.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(severities, sorted);
    let failed = report
        .skill_results
        .iter()
        .find(|skill| skill.skill == "loom-validators")
        .unwrap();
    assert_eq!(failed.status, SkillStatus::Failed);
    assert!(
        failed.notes.contains("task-set-complete"),
        "{}",
        failed.notes
    );
}

#[test]
fn without_staged_or_unstaged_changes_the_scope_is_the_branch_with_its_line_ranges() {
    let repo = Golden::new().build();
    let report = repo.gate();
    let scope = &report.scope;
    assert_eq!(scope.mode, "branch");
    assert_eq!(scope.base_ref.as_deref(), Some("main"));
    assert_eq!(scope.merge_base.as_ref().map(String::len), Some(40));
    assert_eq!(scope.head_sha.as_ref().map(String::len), Some(40));
    assert_eq!(scope.files, scope.included_files);
    let cancel = scope
        .included_files
        .iter()
        .find(|file| file.path == "src/subscription/cancel.py")
        .expect("the committed file is in scope");
    assert_eq!(cancel.status, "added");
    let lines = repo.read("src/subscription/cancel.py").lines().count();
    assert_eq!(cancel.lines, [format!("1-{lines}")]);
    assert_eq!(
        scope.excluded_files.last().map(|file| file.path.as_str()),
        Some("ALL_OTHER_FILES")
    );
}

#[test]
fn staged_changes_come_first_and_the_rest_is_excluded_with_its_reason() {
    let repo = three_kinds_of_change();
    let report = repo.gate();
    let scope = &report.scope;
    assert_eq!(scope.mode, "staged");
    assert_eq!(scope.included_files.len(), 1);
    assert_eq!(scope.included_files[0].path, "README.md");
    assert_eq!(scope.included_files[0].status, "modified");
    assert_eq!(scope.included_files[0].lines, ["2"]);
    let reason = |path: &str| {
        scope
            .excluded_files
            .iter()
            .find(|file| file.path == path)
            .map(|file| file.reason.clone())
            .unwrap_or_else(|| panic!("{path} is not excluded: {:?}", scope.excluded_files))
    };
    assert!(reason("tests/test_cancel.py").starts_with("unstaged"));
    assert!(reason("src/subscription/cancel.py").starts_with("committed on the branch"));
}

#[test]
fn unstaged_changes_come_next_and_each_mode_can_be_asked_for() {
    let repo = Golden::new().build();
    let test = repo.read("tests/test_cancel.py");
    repo.write("tests/test_cancel.py", &format!("# unstaged\n{test}"));
    let report = repo.gate();
    assert_eq!(report.scope.mode, "unstaged");
    assert_eq!(report.scope.included_files[0].path, "tests/test_cancel.py");
    assert_eq!(report.scope.included_files[0].lines, ["1"]);

    let repo = three_kinds_of_change();
    for (mode, path) in [
        (crate::ScopeMode::Staged, "README.md"),
        (crate::ScopeMode::Unstaged, "tests/test_cancel.py"),
        (crate::ScopeMode::Branch, "src/subscription/cancel.py"),
    ] {
        let report = crate::run_gate_in_scope(repo.path(), &GateOptions::default(), Some(mode));
        assert_eq!(report.scope.mode, mode.as_str());
        assert!(
            report
                .scope
                .included_files
                .iter()
                .any(|file| file.path == path),
            "{}: {:?}",
            mode.as_str(),
            report.scope.included_files
        );
    }
}

#[test]
fn an_untracked_file_is_an_unstaged_change_with_its_whole_range() {
    let repo = Golden::new().build();
    repo.write("notes.txt", "one\ntwo\n");
    let report = repo.gate();
    assert_eq!(report.scope.mode, "unstaged");
    assert_eq!(report.scope.included_files[0].path, "notes.txt");
    assert_eq!(report.scope.included_files[0].status, "added");
    assert_eq!(report.scope.included_files[0].lines, ["1-2"]);
}

#[test]
fn a_folder_that_is_not_a_git_repository_is_an_error_report_with_the_full_shape() {
    let dir = tempfile::tempdir().unwrap();
    let report = run_gate(dir.path(), &GateOptions::default());
    assert_eq!(report.status, Status::Error);
    assert_eq!(report.overall.result, OverallResult::Error);
    assert_eq!(report.error.as_ref().unwrap().code, "not-a-git-repository");
    assert_eq!(report.scope.merge_base, None);
    assert_eq!(report.scope.base_ref.as_deref(), Some("main"));
    assert!(report
        .skill_results
        .iter()
        .all(|s| s.status == SkillStatus::NotRun));
    let json = serde_json::to_value(&report).unwrap();
    for key in [
        "findings",
        "issues",
        "customGates",
        "triage",
        "skillResults",
        "deferredToEpic",
    ] {
        assert!(json.get(key).is_some(), "{key}");
    }
}

#[test]
fn a_missing_base_ref_is_an_error_report_that_keeps_the_requested_ref() {
    let repo = Golden::new().build();
    let options = GateOptions {
        base_ref: "release".to_owned(),
        ..GateOptions::default()
    };
    let report = run_gate(repo.path(), &options);
    assert_eq!(report.status, Status::Error);
    assert_eq!(report.error.as_ref().unwrap().code, "base-ref-not-found");
    assert_eq!(report.scope.base_ref.as_deref(), Some("release"));
    assert_eq!(report.scope.merge_base, None);
    assert!(report.scope.head_sha.is_some());
}

#[test]
fn a_repository_without_a_feature_ledger_is_blocked() {
    let mut golden = Golden::new();
    let ledger: Vec<String> = golden
        .head
        .keys()
        .filter(|path| path.starts_with("specs/"))
        .cloned()
        .collect();
    for path in ledger {
        golden.remove(&path);
    }
    let report = golden.build().gate();
    assert_eq!(report.status, Status::Blocked);
    assert_eq!(report.overall.result, OverallResult::Blocked);
    assert_eq!(report.error, None);
    assert!(report.findings[0].description.contains("requirements.json"));
}

#[test]
fn a_requirement_no_task_implements_is_reported_at_the_requirement() {
    let mut golden = Golden::new();
    add_requirement_without_obligations(&mut golden);
    let repo = golden.build();
    let report = repo.gate();
    let path = feature("requirements.json");
    let finding = findings_of(&report, "requirement-task-closure")
        .into_iter()
        .find(|f| f.requirement_id.as_deref() == Some("REQ-002"))
        .unwrap_or_else(|| panic!("{}", describe(&report)));
    let location = finding.location.as_ref().unwrap();
    assert_eq!(location.path, path);
    assert_eq!(
        location.line,
        Some(line_of(&repo.read(&path), "\"REQ-002\""))
    );
}

#[test]
fn a_requirement_without_obligations_has_no_code() {
    let mut golden = Golden::new();
    add_requirement_without_obligations(&mut golden);
    let report = golden.build().gate();
    assert!(findings_of(&report, "requirement-code-closure")
        .iter()
        .any(|f| f.requirement_id.as_deref() == Some("REQ-002")));
}

#[test]
fn a_log_that_does_not_match_its_hash_is_reported_at_the_receipt() {
    let repo = Golden::new().build();
    repo.write(&feature("evidence/unit.log"), "1 failed, 1 passed\n");
    let report = repo.gate();
    expect_finding(
        &report,
        "obligation-evidence-closure",
        &feature("receipts/tests/unit.json"),
    );
    assert!(findings_of(&report, "obligation-evidence-closure")
        .iter()
        .any(|f| f.obligation_id.as_deref() == Some("REQ-001-B01")));
}

#[test]
fn a_diff_binding_the_code_changed_after_is_stale_at_the_diff_line() {
    let repo = bound_by_diff().build();
    repo.write(
        "src/subscription/cancel.py",
        &repo
            .read("src/subscription/cancel.py")
            .replace("cancelled", "canceled"),
    );
    let report = repo.gate();
    let path = feature("receipts/tests/unit.json");
    let stale: Vec<_> = findings_of(&report, "evidence-bound-to-current-tree")
        .into_iter()
        .filter(|f| f.location.as_ref().is_some_and(|l| l.path == path))
        .collect();
    assert_eq!(stale.len(), 1, "{}", describe(&report));
    assert!(
        stale[0].title.ends_with("binds an old diff"),
        "{}",
        stale[0].title
    );
    assert_eq!(
        stale[0].location.as_ref().unwrap().line,
        Some(line_of(&repo.read(&path), "\"diff_sha256\""))
    );
    assert!(findings_of(&report, "obligation-evidence-closure")
        .iter()
        .any(|f| f.obligation_id.as_deref() == Some("REQ-001-B01")));
}

#[test]
fn the_diff_sha256_is_the_hash_of_git_s_raw_diff_of_the_source_trees() {
    // Independently of gittree: the raw diff git2 computes between the merge base and HEAD,
    // restricted to the source tree, projected onto `OLD NEW PATH` lines.
    let mut golden = Golden::new();
    golden.set("a-b/c.txt", "c\n");
    golden.remove("README.md");
    let repo = golden.build();
    let git = git2::Repository::open(repo.path()).unwrap();
    let head = git.head().unwrap().peel_to_commit().unwrap();
    let base = git
        .find_commit(
            git.merge_base(git.revparse_single("main").unwrap().id(), head.id())
                .unwrap(),
        )
        .unwrap();
    let diff = git
        .diff_tree_to_tree(
            Some(&base.tree().unwrap()),
            Some(&head.tree().unwrap()),
            None,
        )
        .unwrap();
    let mut expected = String::new();
    for delta in diff.deltas() {
        let path = delta
            .new_file()
            .path()
            .or(delta.old_file().path())
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        if path.starts_with("specs/") {
            continue;
        }
        expected.push_str(&format!(
            "{} {} {path}\n",
            delta.old_file().id(),
            delta.new_file().id()
        ));
    }
    assert!(expected.contains("README.md") && expected.contains("a-b/c.txt"));
    let view = crate::repo::RepoView::open(repo.path(), "main").unwrap();
    assert_eq!(
        view.diff_sha256,
        format!(
            "sha256:{}",
            gatebench_gittree::sha256_hex(expected.as_bytes())
        )
    );
}

#[test]
fn malformed_requirements_are_a_ledger_schema_finding_with_line_and_column() {
    let repo = Golden::new().build();
    let path = feature("requirements.json");
    repo.write(
        &path,
        "{\n  \"schema_version\": 1,\n  \"requirements\": [\n    {\"id\": }\n  ]\n}\n",
    );
    let report = repo.gate();
    assert_eq!(report.status, Status::Ok);
    let finding = expect_finding(&report, "ledger-schema", &path);
    assert_eq!(finding.location.as_ref().unwrap().line, Some(4));
    assert!(
        finding.description.contains("line 4, column"),
        "{}",
        finding.description
    );
}

#[test]
fn an_unknown_key_in_a_task_state_is_a_warning_not_a_failure() {
    let mut golden = Golden::new();
    golden.edit_json(&feature("task-states/T1.state.json"), |state| {
        state["finished"] = json!(true);
    });
    let report = golden.build().gate();
    assert_eq!(report.overall.result, OverallResult::Pass);
    let finding = report
        .findings
        .iter()
        .find(|finding| finding.validator.as_deref() == Some("ledger-schema"))
        .expect("a warning for the unknown key");
    assert!(finding.severity <= crate::finding::WARNING_MAX);
    assert!(
        finding.description.contains("finished"),
        "{}",
        finding.description
    );
}

#[test]
fn a_key_given_twice_is_a_ledger_schema_finding_at_the_repetition() {
    let mut golden = Golden::new();
    // The requirement's `details` names `concurrency` twice: first not_applicable, then applicable.
    golden.replace(
        &feature("requirements.json"),
        "\"details\": {\n",
        "\"details\": {\n        \"concurrency\": {\n          \"conclusion\": \"applicable\"\n        },\n",
    );
    let repo = golden.build();
    let report = repo.gate();
    let path = feature("requirements.json");
    let finding = expect_finding(&report, "ledger-schema", &path);
    assert!(
        finding.title.contains("`concurrency` twice"),
        "{}",
        finding.title
    );
    let text = repo.read(&path);
    let second = text
        .match_indices("\"concurrency\"")
        .nth(1)
        .map(|(offset, _)| text[..offset].matches('\n').count() as u64 + 1)
        .expect("two occurrences");
    assert_eq!(finding.location.as_ref().unwrap().line, Some(second));
}

#[test]
fn a_task_with_broken_front_matter_is_a_ledger_schema_finding_at_its_line() {
    let mut golden = Golden::new();
    golden.replace(&feature("tasks/T1.md"), "depends_on: []", "depends_on: [\n");
    let report = golden.build().gate();
    let finding = expect_finding(&report, "ledger-schema", &feature("tasks/T1.md"));
    assert!(finding.location.as_ref().unwrap().line.unwrap() >= 2);
}

#[test]
fn a_linked_worktree_that_claims_to_be_linked_passes() {
    let mut golden = Golden::new();
    golden.edit_json(&feature("pipeline.state.json"), |state| {
        state["worktree"]["linked"] = json!(true);
    });
    let (_repo, worktree) = in_linked_worktree(&golden);
    assert_pass(&run_gate(&worktree, &GateOptions::default()));
}

#[test]
fn a_linked_worktree_that_claims_not_to_be_linked_is_reported() {
    let (_repo, worktree) = in_linked_worktree(&Golden::new());
    let report = run_gate(&worktree, &GateOptions::default());
    expect_finding(
        &report,
        "worktree-isolation",
        &feature("pipeline.state.json"),
    );
}

#[test]
fn a_workflow_with_its_generated_schema_passes() {
    assert_pass(&with_workflow(WORKFLOW).build().gate());
}

#[test]
fn the_default_workflow_is_what_the_ledger_documents() {
    let parsed = crate::workflow::parse_workflow(WORKFLOW).unwrap();
    assert_eq!(parsed, crate::ledger::Workflow::builtin_default());
}

#[test]
fn a_schema_that_drifted_from_the_workflow_is_reported() {
    let mut golden = with_workflow(WORKFLOW);
    golden.replace(
        "templates/workflow.yaml",
        "id: verification",
        "id: verifying",
    );
    golden.replace(
        &feature("pipeline.state.json"),
        "\"verification\"",
        "\"verifying\"",
    );
    let report = golden.build().gate();
    expect_finding(&report, "workflow-drift", "config/pipeline.schema.json");
}

#[test]
fn a_workflow_that_drops_a_required_validator_is_reported_and_the_validator_still_runs() {
    let mut golden = with_workflow(&WORKFLOW.replace("task-set-complete, ", ""));
    golden.remove(&feature("task-states/T2.state.json"));
    let report = golden.build().gate();
    let drift = expect_finding(&report, "workflow-drift", "templates/workflow.yaml");
    assert!(drift.title.contains("task-set-complete"));
    expect_finding(&report, "task-set-complete", &feature("tasks/T2.md"));
}

#[test]
fn a_workflow_that_names_an_unknown_validator_is_reported() {
    let golden = with_workflow(&WORKFLOW.replace(
        "no-blocking-findings]",
        "no-blocking-findings, tests-green]",
    ));
    let report = golden.build().gate();
    let finding = expect_finding(&report, "workflow-drift", "templates/workflow.yaml");
    assert!(finding.title.contains("tests-green"));
}

#[test]
fn the_workflow_schema_is_deterministic_and_lists_the_steps_in_order() {
    let first = workflow_schema(WORKFLOW).unwrap();
    assert_eq!(first, workflow_schema(WORKFLOW).unwrap());
    assert_eq!(
        first["properties"]["current_step"]["enum"],
        json!(["executing", "verification"])
    );
    assert_eq!(first["x-reviewers"], json!(["omission-hunter"]));
    assert!(workflow_schema("steps: [").unwrap_err().contains("line"));
}

#[test]
fn a_private_helper_or_an_approved_scope_change_is_not_unrequested() {
    let mut golden = Golden::new();
    golden.replace(
        "src/subscription/cancel.py",
        "    return subscription\n",
        "    return subscription\n\n\ndef _helper():\n    return 1\n",
    );
    assert_pass(&golden.build().gate());
    let mut golden = Golden::new();
    golden.replace(
        "src/subscription/cancel.py",
        "    return subscription\n",
        "    return subscription\n\n\ndef cancel_all(subscriptions, user):\n    return [cancel(s, user) for s in subscriptions]\n",
    );
    golden.edit_json(
        &feature("receipts/approvals/spec-approval.json"),
        |approval| {
            approval["scope_changes"] = json!(["src/subscription/cancel.py::cancel_all"]);
        },
    );
    let report = golden.build().gate();
    assert!(report
        .findings
        .iter()
        .all(|finding| finding.validator.as_deref() != Some("unrequested-public-symbol")));
}

#[test]
fn tasks_that_depend_on_each_other_are_one_cycle_finding() {
    let mut golden = Golden::new();
    golden.replace(
        &feature("tasks/T1.md"),
        "depends_on: []",
        "depends_on: [T2]",
    );
    golden.replace(
        &feature("tasks/T2.md"),
        "depends_on: []",
        "depends_on: [T1]",
    );
    let report = golden.build().gate();
    let cycles = findings_of(&report, "task-dependencies");
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert!(
        cycles[0].title.contains("T1 -> T2 -> T1"),
        "{}",
        cycles[0].title
    );
    assert_eq!(
        cycles[0].location.as_ref().unwrap().path,
        feature("tasks/T1.md")
    );
}

#[test]
fn an_artifact_analysis_no_approval_lists_is_reported() {
    let mut golden = Golden::new();
    golden.set(
        &feature("artifact-analysis.json"),
        "{\"schema_version\": 1, \"conflicts\": []}\n",
    );
    let report = golden.build().gate();
    expect_finding(
        &report,
        "approval-current",
        &feature("artifact-analysis.json"),
    );
    let mut golden = Golden::new();
    golden.set(
        &feature("artifact-analysis.json"),
        "{\"schema_version\": 1, \"conflicts\": []}\n",
    );
    golden.edit_json(
        &feature("receipts/approvals/spec-approval.json"),
        |approval| {
            approval["artifacts"]["artifact-analysis.json"] = json!(format!(
                "sha256:{{{{sha256:{}}}}}",
                feature("artifact-analysis.json")
            ));
        },
    );
    assert_pass(&golden.build().gate());
}

#[test]
fn a_finding_closed_by_a_passing_test_of_its_obligation_passes() {
    let mut golden = Golden::new();
    golden.set(
        &feature("findings/FINDING-001.json"),
        &closed_finding("receipts/tests/unit.json"),
    );
    assert_pass(&golden.build().gate());
    let mut golden = Golden::new();
    golden.set(
        &feature("findings/FINDING-001.json"),
        &closed_finding("receipts/reviews/T1.json"),
    );
    assert_pass(&golden.build().gate());
}

#[test]
fn a_workflow_without_reviewers_still_requires_the_omission_hunter() {
    let workflow = WORKFLOW.replace("reviewers: [omission-hunter]", "reviewers: []");
    let mut golden = with_workflow(&workflow);
    assert_pass(&golden.clone().build().gate());
    golden.remove(&feature("receipts/evaluations/omission-hunter.json"));
    let report = golden.build().gate();
    let finding = expect_finding(
        &report,
        "review-receipts-pass",
        &feature("receipts/evaluations/omission-hunter.json"),
    );
    assert!(finding.title.contains("omission-hunter"));
}
