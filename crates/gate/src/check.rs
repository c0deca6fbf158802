//! The registry of the gate's checks: every check (the Loom validators, the verification loop's,
//! delivery-documents and skein-check's) is one entry here, with its severity, class, group and
//! the rules its findings are raised under; each rule names the omission kind it reports.

use strum::{EnumIter, EnumString, IntoEnumIterator, IntoStaticStr};

/// The finding classes of the verify pipeline (docs/CONCEPTS.md#verify-finding-classes) the gate
/// uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum Class {
    Correctness,
    Coverage,
    TestFailure,
    Environment,
    Style,
    PlanCompleteness,
}

impl Class {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Which part of the gate runs a check; the first four are reported as one skill each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Group {
    /// The 14 validators every workflow must declare (docs/CONCEPTS.md#loom-required-validators), in
    /// the Loom plan's order.
    Required,
    /// The checks on the detail ledger itself.
    Ledger,
    /// The checks on the pipeline's configuration and environment.
    Pipeline,
    /// The gate's own checks of claims the repository can contradict: what the convergence
    /// report and the test receipts say is recomputed from the diff, the code and the logs.
    Independent,
    /// The verification loop's checks, the delivery-documents gate and skein-check
    /// (`docs/LOOP.md`): not validators a workflow can declare.
    Loop,
    /// The deep mode's checks (`--depth deep`): the tests run again, and each obligation's code
    /// neutralized under its tests. Not run in light mode.
    Deep,
}

/// One way a check's finding can come about, and the omission kind (an id of
/// `docs/TAXONOMY.md`) a finding raised under it reports. Every finding of the gate is raised
/// under a rule; the harness types it from the rule, never from its wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rule {
    pub check: Check,
    /// Unique within its check.
    pub name: &'static str,
    /// The taxonomy kind's id (the gate cannot see the harness's `Kind` type).
    pub kind: &'static str,
}

impl Rule {
    /// `<check>/<rule>`, as a report's `findings[].rule` carries it.
    pub fn id(self) -> String {
        format!("{}/{}", self.check.as_str(), self.name)
    }
}

/// A check's registry entry.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    pub group: Group,
    /// The severity of its findings unless a finding says otherwise (documented in
    /// `docs/LEDGER.md` and `docs/LOOP.md`): a failed required validator blocks (9); a gap in the
    /// detail ledger is high (8); two sources of truth that disagree, or a configuration that
    /// drifted, is 7.
    pub severity: u8,
    /// The class of its findings unless a finding says otherwise.
    pub class: Class,
    pub rules: &'static [Rule],
}

/// Declares the checks: the `Check` enum (ids derived, kebab-case, by strum), each check's
/// `Spec`, and one module of rule constants per check (`rules::<check>::<RULE>`).
macro_rules! registry {
    ($(
        $(#[doc = $doc:literal])*
        $check:ident in $module:ident: $group:ident, $severity:literal, $class:ident {
            $($rule:ident = $name:literal => $kind:literal,)+
        }
    )+) => {
        /// Every check the gate runs, in report order: the required validators in the Loom plan's
        /// order, the ledger, pipeline and independent checks, then the loop's.
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, EnumIter, EnumString,
            IntoStaticStr,
        )]
        #[strum(serialize_all = "kebab-case")]
        pub enum Check {
            $($(#[doc = $doc])* $check,)+
        }

        impl Check {
            /// This check's registry entry.
            pub const fn spec(self) -> Spec {
                match self {
                    $(Check::$check => Spec {
                        group: Group::$group,
                        severity: $severity,
                        class: Class::$class,
                        rules: &[$(rules::$module::$rule,)+],
                    },)+
                }
            }
        }

        /// The rules of every check, one module a check.
        pub mod rules {
            $(
                #[doc = concat!("The rules of `", stringify!($module), "`.")]
                pub mod $module {
                    use crate::check::{Check, Rule};
                    $(pub const $rule: Rule = Rule {
                        check: Check::$check,
                        name: $name,
                        kind: $kind,
                    };)+
                }
            )+
        }
    };
}

registry! {
    // The 14 required validators, in the Loom plan's order.
    TaskSetComplete in task_set_complete: Required, 9, PlanCompleteness {
        NO_STATE = "no-task-state" => "task-state-missing",
        NO_DEFINITION = "state-without-task" => "traceability-mismatch",
    }
    AllTaskStatesDone in all_task_states_done: Required, 9, PlanCompleteness {
        NOT_DONE = "not-done" => "task-not-done",
    }
    TaskHandoffsPass in task_handoffs_pass: Required, 9, PlanCompleteness {
        NO_IMPLEMENTATION_RECEIPT = "no-implementation-receipt" => "implementation-receipt-missing",
        NO_REVIEW_RECEIPT = "no-review-receipt" => "review-missing",
        REVIEW_FAILED = "review-failed" => "review-failed",
        OTHER_TASK = "receipt-names-other-task" => "traceability-mismatch",
    }
    RequirementTaskClosure in requirement_task_closure: Required, 9, PlanCompleteness {
        NO_TASK = "no-task" => "requirement-without-task",
    }
    ObligationTaskClosure in obligation_task_closure: Required, 9, PlanCompleteness {
        NO_TASK = "no-task" => "obligation-without-task",
        UNKNOWN_OBLIGATION = "unknown-obligation" => "traceability-mismatch",
    }
    RequirementCodeClosure in requirement_code_closure: Required, 9, Correctness {
        NO_OBLIGATION = "requirement-without-code" => "obligation-missing",
        NO_CODE_REF = "no-code-ref" => "code-ref-broken",
        BROKEN = "code-ref-broken" => "code-ref-broken",
    }
    ObligationTestClosure in obligation_test_closure: Required, 9, Coverage {
        NO_TEST_REF = "no-test-ref" => "test-ref-broken",
        BROKEN = "test-ref-broken" => "test-ref-broken",
        NOT_RUN = "test-not-run" => "test-not-verifying",
    }
    ObligationEvidenceClosure in obligation_evidence_closure: Required, 9, Coverage {
        FAILED_COMMAND = "failed-command" => "test-failing",
        LOG_MISMATCH = "log-mismatch" => "evidence-log-mismatch",
        RESULT_NOT_PASS = "result-not-pass" => "test-failing",
        NOT_PASSING = "status-not-passing" => "evidence-missing",
        NO_EVIDENCE = "no-evidence" => "evidence-missing",
        NO_CURRENT_EVIDENCE = "no-current-evidence" => "evidence-missing",
    }
    ReviewReceiptsPass in review_receipts_pass: Required, 9, Correctness {
        NO_EVALUATION = "no-evaluation" => "review-missing",
        EVALUATION_FAILED = "evaluation-failed" => "review-failed",
        REVIEW_FAILED = "review-failed" => "review-failed",
    }
    DiffWithinOwnership in diff_within_ownership: Required, 9, Correctness {
        OUTSIDE_TASK = "outside-task-ownership" => "unowned-change",
        UNOWNED = "unowned" => "unowned-change",
    }
    EvidenceBoundToCurrentTree in evidence_bound_to_current_tree: Required, 9, Coverage {
        STALE = "stale-receipt" => "evidence-stale",
    }
    ApprovalCurrent in approval_current: Required, 9, PlanCompleteness {
        NO_APPROVAL = "no-approval" => "approval-missing",
        ARTIFACT_UNAPPROVED = "artifact-unapproved" => "approval-missing",
        ARTIFACT_GONE = "artifact-gone" => "approval-missing",
        CHANGED = "changed-after-approval" => "approval-stale",
        OTHER_SPEC = "derived-from-other-spec" => "approval-stale",
        SUPERSEDED = "superseded-unapproved" => "approval-missing",
    }
    ConvergencePass in convergence_pass: Required, 9, Correctness {
        OLD_TREE = "old-tree" => "evidence-stale",
        UNCLASSIFIED = "unclassified" => "convergence-incomplete",
        NOT_IMPLEMENTED = "not-implemented" => "obligation-not-implemented",
        CLASSIFIED_UNREQUESTED = "classified-unrequested" => "unrequested-change",
        UNVERIFIABLE = "unverifiable" => "evidence-missing",
        UNREQUESTED_UNAPPROVED = "unrequested-unapproved" => "unrequested-change",
        BLOCKING = "blocking-findings" => "finding-open",
    }
    NoBlockingFindings in no_blocking_findings: Required, 9, Correctness {
        OPEN = "open" => "finding-open",
        CLOSURE_UNPROVEN = "closure-unproven" => "finding-closure-unproven",
        CLOSED_BY_UNRELATED = "closed-by-unrelated-receipt" => "finding-open",
        RECEIPT_OPEN = "receipt-finding-open" => "finding-open",
    }
    // The detail ledger.
    TaskDependencies in task_dependencies: Ledger, 8, PlanCompleteness {
        UNKNOWN = "unknown-dependency" => "traceability-mismatch",
        CYCLE = "cycle" => "traceability-mismatch",
    }
    DetailExpansion in detail_expansion: Ledger, 8, PlanCompleteness {
        NO_REQUIREMENT = "no-requirement" => "obligation-missing",
        DUPLICATE_ID = "duplicate-id" => "ledger-id-duplicate",
        UNCONCLUDED = "unconcluded" => "detail-unconcluded",
        NO_OBLIGATION = "no-obligation" => "obligation-missing",
        NO_REASON = "dismissed-without-reason" => "detail-unconcluded",
        CONTRADICTED = "contradicted" => "detail-unconcluded",
        CLARIFICATION = "needs-clarification" => "clarification-open",
    }
    ObligationTestPlan in obligation_test_plan: Ledger, 8, PlanCompleteness {
        INCOMPLETE = "incomplete-plan" => "test-plan-missing",
    }
    Traceability in traceability: Ledger, 7, PlanCompleteness {
        UNKNOWN_OBLIGATION = "unknown-obligation" => "traceability-mismatch",
        DISAGREES = "disagrees" => "traceability-mismatch",
        NO_ROW = "no-row" => "traceability-mismatch",
        ROWS = "several-rows" => "traceability-mismatch",
    }
    AcceptanceItems in acceptance_items: Ledger, 8, PlanCompleteness {
        UNCHECKED = "unchecked-item" => "acceptance-unchecked",
    }
    LedgerSchema in ledger_schema: Ledger, 9, PlanCompleteness {
        FILE_MISSING = "file-missing" => "ledger-file-missing",
        NO_LEDGER = "no-feature-ledger" => "ledger-file-missing",
        MALFORMED = "malformed" => "ledger-malformed",
        UNKNOWN_KEY = "unknown-key" => "ledger-malformed",
        MISNAMED = "misnamed" => "ledger-malformed",
        BAD_GLOB = "bad-glob" => "ledger-malformed",
    }
    // The pipeline's configuration and environment.
    WorktreeIsolation in worktree_isolation: Pipeline, 7, Environment {
        CONTRADICTED = "claim-contradicted" => "worktree-misdetected",
    }
    WorkflowDrift in workflow_drift: Pipeline, 7, PlanCompleteness {
        UNPARSABLE = "unparsable" => "workflow-drift",
        UNDECLARED = "required-validator-undeclared" => "workflow-validator-missing",
        STEP_TWICE = "step-twice" => "workflow-drift",
        UNKNOWN_VALIDATOR = "unknown-validator" => "workflow-validator-missing",
        SCHEMA = "schema-drift" => "workflow-drift",
        UNDECLARED_STEP = "undeclared-step" => "workflow-drift",
    }
    // The checks that recompute a claim from the repository.
    ObligationImplemented in obligation_implemented: Independent, 9, Correctness {
        STUB = "stub" => "obligation-not-implemented",
    }
    UnrequestedPublicSymbol in unrequested_public_symbol: Independent, 9, Correctness {
        SYMBOL = "unrequested-symbol" => "unrequested-change",
    }
    TestReceiptLog in test_receipt_log: Independent, 9, Coverage {
        NO_RESULT = "no-test-result" => "evidence-log-mismatch",
        TOTALS = "totals-disagree" => "evidence-log-mismatch",
        FAILED_EXIT_ZERO = "failed-tests-exit-zero" => "test-failing",
        NOT_PASSED = "claim-not-passed" => "test-failing",
        NOT_A_TEST_REF = "not-a-test-ref" => "evidence-missing",
    }
    // Deep mode: the tests run (crates/gate/src/deep/).
    /// A test receipt's command run again in a copy of the work tree: a test it claims passed
    /// fails, does not run, or is skipped, ignored, expected to fail or to-do; or the command
    /// cannot run at all.
    TestRerun in test_rerun: Deep, 9, TestFailure {
        FAILS = "claimed-pass-fails" => "test-failing",
        NOT_RUN = "claimed-pass-not-run" => "test-not-verifying",
        NOT_RUNNABLE = "command-not-runnable" => "verification-not-runnable",
    }
    /// An obligation's cited code neutralized in a copy of the work tree, one of its tests still
    /// passes: it cannot fail for it; or one site of that code changed (a call deleted, a guard
    /// deleted, an error branch emptied, a comparison reversed) and every test still passes.
    RedGreen in red_green: Deep, 9, Coverage {
        SURVIVES = "tests-pass-without-the-code" => "test-not-verifying",
        UNNOTICED = "a-cited-change-goes-unnoticed" => "test-not-verifying",
    }
    // The verification loop (docs/LOOP.md).
    /// The `## Verification` section of `AGENTS.md` is wrong or lacks a key it needs.
    LoopConfig in loop_config: Loop, 9, Environment {
        INVALID = "invalid" => "verification-not-runnable",
        NO_COMMAND = "no-command" => "verification-not-runnable",
    }
    /// The machine state file cannot be read or written, or contradicts the configuration.
    LoopState in loop_state: Loop, 9, Environment {
        UNRESUMABLE = "unresumable" => "ledger-malformed",
        UNWRITABLE = "unwritable" => "verification-not-runnable",
    }
    /// A dimension's command could not start, was not found, or timed out: nothing was judged.
    LoopEnvironment in loop_environment: Loop, 9, Environment {
        NOT_RUNNABLE = "not-runnable" => "verification-not-runnable",
    }
    /// V1: the build command failed or printed error lines.
    LoopBuild in loop_build: Loop, 9, Correctness {
        FAILED = "failed" => "build-failing",
    }
    /// V2: the test command failed, or a test point failed.
    LoopTest in loop_test: Loop, 9, TestFailure {
        FAILED = "failed" => "test-failing",
    }
    /// V3: the performance command failed or reported a critical issue.
    LoopPerformance in loop_performance: Loop, 8, Correctness {
        FAILED = "failed" => "performance-critical",
    }
    /// V5: the standards command failed or reported an error-level violation.
    LoopStandards in loop_standards: Loop, 7, Style {
        FAILED = "failed" => "standards-violation",
    }
    /// The same V2 test point failed in two consecutive rounds (docs/CONCEPTS.md#loop-escalation).
    LoopEscalation in loop_escalation: Loop, 9, TestFailure {
        ESCALATED = "escalated" => "test-failing",
    }
    /// A dimension still fails at the iteration limit: FAIL, a human must step in. The kind is
    /// the first failing dimension's.
    LoopLimit in loop_limit: Loop, 9, Correctness {
        BUILD = "build" => "build-failing",
        PERFORMANCE = "performance" => "performance-critical",
        STANDARDS = "standards" => "standards-violation",
        OTHER = "tests-or-other" => "test-failing",
    }
    /// A delivery document is missing, names another requirement, or the changelist misses a
    /// file.
    DeliveryDocuments in delivery_documents: Loop, 8, PlanCompleteness {
        EMPTY = "empty" => "delivery-doc-missing",
        MISSING = "missing" => "delivery-doc-missing",
        OTHER_REQUIREMENT = "other-requirement" => "delivery-doc-wrong-requirement",
        UNNAMED = "requirement-unnamed" => "delivery-doc-wrong-requirement",
        TOPIC = "topic-uncovered" => "delivery-doc-missing",
        CHANGELIST = "changelist-incomplete" => "changelist-incomplete",
    }
    /// skein-check: an unchecked `- [ ]` acceptance item in the PRD, or no PRD to check.
    SkeinAcceptance in skein_acceptance: Loop, 8, PlanCompleteness {
        NO_PRD = "prd-missing" => "ledger-file-missing",
        UNCHECKED = "unchecked-item" => "acceptance-unchecked",
        NO_SECTION = "no-acceptance-section" => "acceptance-unchecked",
    }
    /// skein-check: a contract of the PRD does not hold.
    SkeinContract in skein_contract: Loop, 9, Correctness {
        VIOLATED = "violated" => "contract-violated",
    }
    /// skein-check: two places disagree (two definitions of one responsibility, a call that does
    /// not match the signature, two contracts that contradict each other).
    SkeinConflict in skein_conflict: Loop, 9, Correctness {
        CONTRADICT = "contracts-contradict" => "contracts-contradict",
        DEFINED_TWICE = "defined-twice" => "duplicate-responsibility",
        SIGNATURE = "signature-mismatch" => "signature-conflict",
    }
}

impl Check {
    /// The kebab-case id reports carry in `findings[].validator`.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The checks of `group`, in report order.
    pub fn in_group(group: Group) -> impl Iterator<Item = Check> {
        Check::iter().filter(move |check| check.spec().group == group)
    }

    /// Every validator a workflow may declare (every check outside the loop's).
    pub fn validators() -> impl Iterator<Item = Check> {
        Check::iter().filter(|check| check.spec().group != Group::Loop)
    }

    /// The validator a workflow names, if the gate knows it (a loop check is not one).
    pub fn validator(name: &str) -> Option<Check> {
        name.parse::<Check>()
            .ok()
            .filter(|check| check.spec().group != Group::Loop)
    }

    /// Every rule of every check, in report order.
    pub fn all_rules() -> impl Iterator<Item = Rule> {
        Check::iter().flat_map(|check| check.spec().rules.iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_check_has_rules_with_distinct_names_and_belongs_to_it() {
        for check in Check::iter() {
            let spec = check.spec();
            assert!(!spec.rules.is_empty(), "{} has no rule", check.as_str());
            assert!((1..=10).contains(&spec.severity));
            let mut names = std::collections::BTreeSet::new();
            for rule in spec.rules {
                assert_eq!(rule.check, check, "{}", rule.id());
                assert!(names.insert(rule.name), "{} twice", rule.id());
            }
        }
    }

    #[test]
    fn the_groups_keep_the_seed_order_and_loop_checks_are_not_validators() {
        let required: Vec<&str> = Check::in_group(Group::Required)
            .map(Check::as_str)
            .collect();
        assert_eq!(required.len(), 14);
        assert_eq!(required[0], "task-set-complete");
        assert_eq!(required[13], "no-blocking-findings");
        // The 14 required validators, the ledger's, the pipeline's and the independent checks
        // (25), and the two deep checks.
        assert_eq!(Check::validators().count(), 27);
        assert_eq!(
            Check::in_group(Group::Deep)
                .map(Check::as_str)
                .collect::<Vec<_>>(),
            ["test-rerun", "red-green"]
        );
        assert_eq!(
            Check::validator("evidence-bound-to-current-tree"),
            Some(Check::EvidenceBoundToCurrentTree)
        );
        assert_eq!(Check::validator("loop-build"), None);
        assert_eq!(Check::LoopBuild.as_str(), "loop-build");
        assert_eq!(Check::DeliveryDocuments.as_str(), "delivery-documents");
        assert_eq!(
            crate::check::rules::loop_limit::OTHER.id(),
            "loop-limit/tests-or-other"
        );
    }
}
