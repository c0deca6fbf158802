//! The validator ids of the reference gate and the findings they raise, before they are projected
//! onto the report v1 `findings[]` and `issues[]`.

/// Every check the gate runs. The first 14 are the required validators of seed 004, 9.2; a
/// workflow must declare each of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ValidatorId {
    TaskSetComplete,
    AllTaskStatesDone,
    TaskHandoffsPass,
    RequirementTaskClosure,
    ObligationTaskClosure,
    RequirementCodeClosure,
    ObligationTestClosure,
    ObligationEvidenceClosure,
    ReviewReceiptsPass,
    DiffWithinOwnership,
    EvidenceBoundToCurrentTree,
    ApprovalCurrent,
    ConvergencePass,
    NoBlockingFindings,
    DetailExpansion,
    ObligationTestPlan,
    Traceability,
    LedgerSchema,
    WorktreeIsolation,
    WorkflowDrift,
    AcceptanceItems,
    ObligationImplemented,
    UnrequestedPublicSymbol,
    TestReceiptLog,
    TaskDependencies,
}

/// The highest severity of a warning: a finding at or below it is reported but does not fail the
/// gate (an unknown key in a ledger file).
pub const WARNING_MAX: u8 = 3;

/// The seed 001 finding classes the gate uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    Correctness,
    Coverage,
    TestFailure,
    Environment,
    PlanCompleteness,
}

impl Class {
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Correctness => "correctness",
            Class::Coverage => "coverage",
            Class::TestFailure => "test-failure",
            Class::Environment => "environment",
            Class::PlanCompleteness => "plan-completeness",
        }
    }
}

impl ValidatorId {
    /// The 14 validators every workflow must declare (seed 004, 9.2), in the seed's order.
    pub const REQUIRED: [ValidatorId; 14] = [
        ValidatorId::TaskSetComplete,
        ValidatorId::AllTaskStatesDone,
        ValidatorId::TaskHandoffsPass,
        ValidatorId::RequirementTaskClosure,
        ValidatorId::ObligationTaskClosure,
        ValidatorId::RequirementCodeClosure,
        ValidatorId::ObligationTestClosure,
        ValidatorId::ObligationEvidenceClosure,
        ValidatorId::ReviewReceiptsPass,
        ValidatorId::DiffWithinOwnership,
        ValidatorId::EvidenceBoundToCurrentTree,
        ValidatorId::ApprovalCurrent,
        ValidatorId::ConvergencePass,
        ValidatorId::NoBlockingFindings,
    ];

    /// The gate's checks on the detail ledger itself.
    pub const LEDGER: [ValidatorId; 6] = [
        ValidatorId::TaskDependencies,
        ValidatorId::DetailExpansion,
        ValidatorId::ObligationTestPlan,
        ValidatorId::Traceability,
        ValidatorId::AcceptanceItems,
        ValidatorId::LedgerSchema,
    ];

    /// The gate's checks on the pipeline's configuration and environment.
    pub const PIPELINE: [ValidatorId; 2] =
        [ValidatorId::WorktreeIsolation, ValidatorId::WorkflowDrift];

    /// The gate's own checks of claims the repository can contradict: what the convergence report
    /// and the test receipts say is recomputed from the diff, the code and the logs.
    pub const INDEPENDENT: [ValidatorId; 3] = [
        ValidatorId::ObligationImplemented,
        ValidatorId::UnrequestedPublicSymbol,
        ValidatorId::TestReceiptLog,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ValidatorId::TaskSetComplete => "task-set-complete",
            ValidatorId::AllTaskStatesDone => "all-task-states-done",
            ValidatorId::TaskHandoffsPass => "task-handoffs-pass",
            ValidatorId::RequirementTaskClosure => "requirement-task-closure",
            ValidatorId::ObligationTaskClosure => "obligation-task-closure",
            ValidatorId::RequirementCodeClosure => "requirement-code-closure",
            ValidatorId::ObligationTestClosure => "obligation-test-closure",
            ValidatorId::ObligationEvidenceClosure => "obligation-evidence-closure",
            ValidatorId::ReviewReceiptsPass => "review-receipts-pass",
            ValidatorId::DiffWithinOwnership => "diff-within-ownership",
            ValidatorId::EvidenceBoundToCurrentTree => "evidence-bound-to-current-tree",
            ValidatorId::ApprovalCurrent => "approval-current",
            ValidatorId::ConvergencePass => "convergence-pass",
            ValidatorId::NoBlockingFindings => "no-blocking-findings",
            ValidatorId::DetailExpansion => "detail-expansion",
            ValidatorId::ObligationTestPlan => "obligation-test-plan",
            ValidatorId::Traceability => "traceability",
            ValidatorId::LedgerSchema => "ledger-schema",
            ValidatorId::WorktreeIsolation => "worktree-isolation",
            ValidatorId::WorkflowDrift => "workflow-drift",
            ValidatorId::AcceptanceItems => "acceptance-items",
            ValidatorId::ObligationImplemented => "obligation-implemented",
            ValidatorId::UnrequestedPublicSymbol => "unrequested-public-symbol",
            ValidatorId::TestReceiptLog => "test-receipt-log",
            ValidatorId::TaskDependencies => "task-dependencies",
        }
    }

    /// Every validator id the gate knows.
    pub fn all() -> impl Iterator<Item = ValidatorId> {
        Self::REQUIRED
            .into_iter()
            .chain(Self::LEDGER)
            .chain(Self::PIPELINE)
            .chain(Self::INDEPENDENT)
    }

    pub fn from_name(name: &str) -> Option<ValidatorId> {
        Self::all().find(|id| id.as_str() == name)
    }

    /// The severity of this validator's findings (documented in `docs/LEDGER.md`): a failed
    /// required validator blocks (9); a gap in the detail ledger is high (8); two sources of truth
    /// that disagree, or a configuration that drifted, is 7.
    pub fn severity(self) -> u8 {
        match self {
            ValidatorId::DetailExpansion
            | ValidatorId::TaskDependencies
            | ValidatorId::ObligationTestPlan
            | ValidatorId::AcceptanceItems => 8,
            ValidatorId::Traceability
            | ValidatorId::WorktreeIsolation
            | ValidatorId::WorkflowDrift => 7,
            _ => 9,
        }
    }

    /// The class of this validator's findings unless a finding says otherwise.
    pub fn class(self) -> Class {
        match self {
            ValidatorId::RequirementCodeClosure
            | ValidatorId::ReviewReceiptsPass
            | ValidatorId::DiffWithinOwnership
            | ValidatorId::ConvergencePass
            | ValidatorId::NoBlockingFindings
            | ValidatorId::ObligationImplemented
            | ValidatorId::UnrequestedPublicSymbol => Class::Correctness,
            ValidatorId::ObligationTestClosure
            | ValidatorId::ObligationEvidenceClosure
            | ValidatorId::EvidenceBoundToCurrentTree
            | ValidatorId::TestReceiptLog => Class::Coverage,
            ValidatorId::WorktreeIsolation => Class::Environment,
            _ => Class::PlanCompleteness,
        }
    }
}

/// One thing the gate found wrong, with the most precise place a person should open to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateFinding {
    pub validator: ValidatorId,
    pub severity: u8,
    pub class: Class,
    pub title: String,
    pub description: String,
    /// Repository path.
    pub path: Option<String>,
    pub line: Option<u64>,
    pub end_line: Option<u64>,
    pub requirement_id: Option<String>,
    pub obligation_id: Option<String>,
}

impl GateFinding {
    pub fn new(
        validator: ValidatorId,
        title: impl Into<String>,
        description: impl Into<String>,
    ) -> GateFinding {
        GateFinding {
            validator,
            severity: validator.severity(),
            class: validator.class(),
            title: title.into(),
            description: description.into(),
            path: None,
            line: None,
            end_line: None,
            requirement_id: None,
            obligation_id: None,
        }
    }

    /// Locates the finding at `path` (a repository path), optionally at a line.
    pub fn at(mut self, path: impl Into<String>, line: Option<u64>) -> GateFinding {
        self.path = Some(path.into());
        self.line = line;
        self
    }

    pub fn requirement(mut self, id: impl Into<String>) -> GateFinding {
        self.requirement_id = Some(id.into());
        self
    }

    pub fn obligation(mut self, id: impl Into<String>) -> GateFinding {
        self.obligation_id = Some(id.into());
        self
    }

    /// Lowers (or raises) the finding's severity, e.g. to a warning (`WARNING_MAX` or less).
    pub fn severity(mut self, severity: u8) -> GateFinding {
        self.severity = severity;
        self
    }

    pub fn class(mut self, class: Class) -> GateFinding {
        self.class = class;
        self
    }
}
