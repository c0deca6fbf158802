//! The omission taxonomy (docs/TAXONOMY.md): the kinds of omission a fixture's ground truth names,
//! stable short ids a verifier author maps their own finding categories onto.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use strum::{EnumIter, EnumMessage, EnumString, IntoEnumIterator, IntoStaticStr};

/// One kind of omission. The ids are stable: renaming one is a breaking change of the fixture
/// format and of every `kinds:` mapping.
// The id is derived from the variant's name (kebab-case, the same for serde and strum) and the
// definition is the variant's doc comment, so each is written once.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    EnumIter,
    EnumString,
    IntoStaticStr,
    EnumMessage,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Kind {
    /// A task defined in the plan (`tasks/<T>.md`) has no recorded task state, so nothing says whether it was done.
    TaskStateMissing,
    /// A task's recorded state is not done (pending, executing, reviewing, blocked or failed) while the work is reported complete.
    TaskNotDone,
    /// A task has no implementation handoff receipt: nothing records what it delivered.
    ImplementationReceiptMissing,
    /// A required review never happened: a task has no review receipt, or a required reviewer or evaluator (e.g. omission-hunter) has no evaluation.
    ReviewMissing,
    /// A task review or a required evaluation concluded fail, yet the work is reported complete.
    ReviewFailed,
    /// An acceptance item of a task or PRD is still unchecked (`- [ ]`), or the acceptance list to check is missing.
    AcceptanceUnchecked,
    /// A requirement maps to no existing task: nothing in the plan implements it.
    RequirementWithoutTask,
    /// A behaviour obligation is not assigned to an existing task that lists it.
    ObligationWithoutTask,
    /// A detail that a requirement concludes applicable (or a requirement as a whole) has no behaviour obligation: the detail was recognised and then lost.
    ObligationMissing,
    /// A requirement lacks a valid conclusion for one of the 15 mandatory detail categories (absent, not_applicable without a reason, or contradicted by its own obligations).
    DetailUnconcluded,
    /// A detail category is still `requires_clarification` (an open question) while the work went ahead.
    ClarificationOpen,
    /// A behaviour obligation has no test plan, or one that states no expected result (for forbidden behaviour: no forbidden effect).
    TestPlanMissing,
    /// Two requirements or two obligations share one id.
    LedgerIdDuplicate,
    /// An obligation cites no code, or code that does not resolve (file missing, lines past its end, symbol absent).
    CodeRefBroken,
    /// An obligation cites no test, or a test that does not resolve (file missing, test id not in the file, e.g. after a rename).
    TestRefBroken,
    /// A test an obligation cites cannot fail when the obligation's code is broken: it asserts nothing (or only what always holds), is skipped, expected to fail or commented out, or checks only the positive side of a forbidden behaviour.
    TestNotVerifying,
    /// Two ledger records disagree: a traceability row missing, duplicated, for an unknown obligation or differing from the requirements (task, refs, receipts, verdict); a task listing an undefined obligation; a task state or receipt naming another task.
    TraceabilityMismatch,
    /// An obligation has no passing evidence of its own: it cites no test receipt, no cited receipt lists a result for it, or it is still not passing or unverifiable.
    EvidenceMissing,
    /// Evidence (a test, review, implementation or evaluation receipt, or the convergence report) binds an older source tree than the one verified: the code changed after it was recorded.
    EvidenceStale,
    /// A test receipt is not backed by its log: the log is missing or its sha256 differs from the one the receipt records.
    EvidenceLogMismatch,
    /// A test of the change fails: a failed test point when the tests run, or recorded evidence of a failed run or a failed/skipped result.
    TestFailing,
    /// An approved artifact (spec, requirements, plan, ...) changed after its approval, and the old approval is reused.
    ApprovalStale,
    /// An artifact that must be approved has no approval: no approval receipt, an artifact no receipt lists, an approved artifact that is gone, or an obligation superseded without approval.
    ApprovalMissing,
    /// A changed file (committed, staged, unstaged or untracked) that no task owns, or that the task which changed it does not own, and no approved scope change lists.
    UnownedChange,
    /// Code that no requirement asked for (e.g. a new public API) is delivered without approval.
    UnrequestedChange,
    /// A behaviour obligation is missing, partial or contradicted in the code (e.g. the failure rollback is a TODO).
    ObligationNotImplemented,
    /// The convergence judgement leaves an obligation unclassified.
    ConvergenceIncomplete,
    /// A BLOCKER or HIGH finding is still open (in the findings, in a review or evaluation, or in the convergence report's blocking list).
    FindingOpen,
    /// A BLOCKER or HIGH finding is marked closed without existing evidence of the fix.
    FindingClosureUnproven,
    /// A record the verification requires does not exist (a ledger file such as convergence-report.json, a declared PRD, the whole feature ledger).
    LedgerFileMissing,
    /// A machine-readable record (ledger JSON, receipt, task state, task front matter, the verification loop's state file) does not parse or does not match its schema.
    LedgerMalformed,
    /// The workflow definition does not declare a required validator, or declares one that does not exist.
    WorkflowValidatorMissing,
    /// What is generated from or bound to the workflow definition disagrees with it (a generated schema not regenerated, a pipeline state at an undeclared step), or the definition itself is unusable.
    WorkflowDrift,
    /// The pipeline's claim about working in a linked git worktree contradicts the repository (git dir vs common dir).
    WorktreeMisdetected,
    /// The build or type check of the change fails.
    BuildFailing,
    /// The change has a critical performance issue, e.g. sorting the whole input where a bounded selection is required.
    PerformanceCritical,
    /// The change violates an error-level lint, format or style rule.
    StandardsViolation,
    /// A verification dimension cannot be judged: its command is not declared or unusable as written, cannot start, is not found or times out, or the verification configuration is unusable.
    VerificationNotRunnable,
    /// A required delivery document (changelist, tech-ref, review-report) is missing or empty.
    DeliveryDocMissing,
    /// A delivery document carries another requirement id than the one delivered, or none.
    DeliveryDocWrongRequirement,
    /// The changelist does not name a file that `git diff BASE...HEAD` changes.
    ChangelistIncomplete,
    /// A contract locked in at planning (a signature, a file, a text) does not hold.
    ContractViolated,
    /// A call does not match the signature of the function it calls.
    SignatureConflict,
    /// One responsibility is implemented twice (a second definition of what a contract assigns elsewhere).
    DuplicateResponsibility,
    /// Two contracts cannot both hold.
    ContractsContradict,
    /// What one part produces is not what the part consuming it expects (a broken data flow between subtasks).
    DataFlowBroken,
}

impl Kind {
    /// Every kind, in the order of docs/TAXONOMY.md.
    pub fn all() -> impl Iterator<Item = Kind> {
        Kind::iter()
    }

    /// The stable id, as fixtures and `kinds:` mappings write it.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The one-line definition of docs/TAXONOMY.md: the variant's doc comment.
    pub fn definition(self) -> &'static str {
        self.get_documentation().unwrap_or_default()
    }

    /// The kind with this id.
    pub fn from_id(id: &str) -> Option<Kind> {
        id.parse().ok()
    }
}

/// The tier of an omission: how deep a verifier must look to see it. The ids are stable, as the
/// kinds' are.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    EnumIter,
    EnumString,
    IntoStaticStr,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Tier {
    /// Records that do not add up (receipts, refs, hashes, states): reading the ledger and the
    /// repository finds it. Every fixture is `ledger` unless it says otherwise.
    #[default]
    Ledger,
    /// The code does not do what it claims (a stub, a dropped guard, a hollowed test): only
    /// running the code reveals it.
    Semantic,
}

impl Tier {
    /// The stable id, as fixtures and results write it.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether it is the default tier (`ledger`): a fixture file leaves it out.
    pub fn is_ledger(&self) -> bool {
        *self == Tier::Ledger
    }
}

/// How a semantic omission shows when the golden's own test suite runs on it.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    EnumIter,
    EnumString,
    IntoStaticStr,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Signal {
    /// The golden's own test suite fails on it: a gate that re-runs the tests catches it.
    Loud,
    /// The golden's own test suite stays green on it.
    Silent,
}

impl Signal {
    /// The stable id, as fixtures and results write it.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_and_signals_have_lowercase_ids_that_round_trip() {
        for (tier, id) in [(Tier::Ledger, "ledger"), (Tier::Semantic, "semantic")] {
            assert_eq!(tier.as_str(), id);
            assert_eq!(serde_json::to_value(tier).unwrap(), id);
            assert_eq!(id.parse::<Tier>().unwrap(), tier);
        }
        for (signal, id) in [(Signal::Loud, "loud"), (Signal::Silent, "silent")] {
            assert_eq!(signal.as_str(), id);
            assert_eq!(serde_json::to_value(signal).unwrap(), id);
            assert_eq!(id.parse::<Signal>().unwrap(), signal);
        }
        assert_eq!(Tier::default(), Tier::Ledger);
        assert!("Semantic".parse::<Tier>().is_err());
    }

    #[test]
    fn every_kind_has_a_distinct_id_that_round_trips_through_serde() {
        let mut seen = std::collections::BTreeSet::new();
        for kind in Kind::all() {
            assert!(seen.insert(kind.as_str()), "{} twice", kind.as_str());
            let json = serde_json::to_value(kind).unwrap();
            assert_eq!(json, kind.as_str());
            assert_eq!(Kind::from_id(kind.as_str()), Some(kind));
            assert!(!kind.definition().is_empty());
        }
    }

    #[test]
    fn the_taxonomy_page_lists_every_kind_with_its_definition() {
        let page = include_str!("../../docs/TAXONOMY.md");
        for kind in Kind::all() {
            assert!(
                page.contains(&format!("| `{}` | {} |", kind.as_str(), kind.definition())),
                "docs/TAXONOMY.md does not list `{}` with its definition (the doc comment of \
                 `Kind`'s variant)",
                kind.as_str()
            );
        }
    }
}
