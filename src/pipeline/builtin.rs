//! The in-process pipelines: the reference gate (`builtin`) and the legacy document-style checker
//! (`legacy`), both from the `gatebench-gate` crate.

use std::path::Path;

use gatebench_gate::GateOptions;
use gatebench_report::Report;

use crate::corpus::scenario::KindRule;
use crate::corpus::taxonomy::Kind;
use crate::pipeline::round::{Pipeline, RoundInput, RoundOutput, RoundRun};

/// The reference gate's mapping of its check ids onto the taxonomy (docs/TAXONOMY.md, last
/// section): (check id, kind, title pattern). A check whose findings are of several kinds lists
/// the title patterns that tell them apart before its default (empty pattern); the first row that
/// matches a finding's `validator` and title gives its kind.
const GATE_KINDS: &[(&str, Kind, &str)] = &[
    // The checks that recompute a claim from the repository.
    ("obligation-implemented", Kind::ObligationNotImplemented, ""),
    ("unrequested-public-symbol", Kind::UnrequestedChange, ""),
    (
        "test-receipt-log",
        Kind::TestFailing,
        r"records failed tests|is not passed in",
    ),
    (
        "test-receipt-log",
        Kind::EvidenceLogMismatch,
        r"totals disagree|shows no test result",
    ),
    ("test-receipt-log", Kind::EvidenceMissing, ""),
    ("task-dependencies", Kind::TraceabilityMismatch, ""),
    (
        "task-set-complete",
        Kind::TraceabilityMismatch,
        r"has no task definition",
    ),
    ("task-set-complete", Kind::TaskStateMissing, ""),
    ("all-task-states-done", Kind::TaskNotDone, ""),
    (
        "task-handoffs-pass",
        Kind::ImplementationReceiptMissing,
        r"has no implementation receipt",
    ),
    ("task-handoffs-pass", Kind::ReviewFailed, r"did not pass"),
    (
        "task-handoffs-pass",
        Kind::TraceabilityMismatch,
        r"^(implementation|review) receipt \S+ names task \S+$",
    ),
    ("task-handoffs-pass", Kind::ReviewMissing, ""),
    ("requirement-task-closure", Kind::RequirementWithoutTask, ""),
    (
        "obligation-task-closure",
        Kind::TraceabilityMismatch,
        r"lists unknown obligation",
    ),
    ("obligation-task-closure", Kind::ObligationWithoutTask, ""),
    (
        "requirement-code-closure",
        Kind::ObligationMissing,
        r"^requirement \S+ has no code$",
    ),
    ("requirement-code-closure", Kind::CodeRefBroken, ""),
    ("obligation-test-closure", Kind::TestRefBroken, ""),
    (
        "obligation-evidence-closure",
        Kind::TestFailing,
        r"records a failed command|^test receipt \S+ records \S+ as (fail|skip)$",
    ),
    (
        "obligation-evidence-closure",
        Kind::EvidenceLogMismatch,
        r"is not backed by its log",
    ),
    ("obligation-evidence-closure", Kind::EvidenceMissing, ""),
    (
        "review-receipts-pass",
        Kind::ReviewFailed,
        r"did not pass|says fail",
    ),
    ("review-receipts-pass", Kind::ReviewMissing, ""),
    ("diff-within-ownership", Kind::UnownedChange, ""),
    ("evidence-bound-to-current-tree", Kind::EvidenceStale, ""),
    (
        "approval-current",
        Kind::ApprovalMissing,
        r"has no approval|^approved artifact .+ is missing$|superseded without approval",
    ),
    ("approval-current", Kind::ApprovalStale, ""),
    (
        "convergence-pass",
        Kind::EvidenceStale,
        r"judges an old source tree",
    ),
    (
        "convergence-pass",
        Kind::ConvergenceIncomplete,
        r"did not classify",
    ),
    (
        "convergence-pass",
        Kind::UnrequestedChange,
        r"^unrequested change|as unrequested$",
    ),
    (
        "convergence-pass",
        Kind::EvidenceMissing,
        r"as unverifiable$",
    ),
    ("convergence-pass", Kind::FindingOpen, r"blocking finding"),
    ("convergence-pass", Kind::ObligationNotImplemented, ""),
    (
        "no-blocking-findings",
        Kind::FindingClosureUnproven,
        r"is closed without|is closed by a receipt that does not exist",
    ),
    ("no-blocking-findings", Kind::FindingOpen, ""),
    (
        "detail-expansion",
        Kind::LedgerIdDuplicate,
        r"is not unique$",
    ),
    (
        "detail-expansion",
        Kind::ClarificationOpen,
        r"needs clarification",
    ),
    (
        "detail-expansion",
        Kind::ObligationMissing,
        r"has no \S+ obligation$|lists no requirement$",
    ),
    ("detail-expansion", Kind::DetailUnconcluded, ""),
    ("obligation-test-plan", Kind::TestPlanMissing, ""),
    ("traceability", Kind::TraceabilityMismatch, ""),
    (
        "ledger-schema",
        Kind::LedgerFileMissing,
        r"is missing$|^no feature ledger",
    ),
    ("ledger-schema", Kind::LedgerMalformed, ""),
    ("worktree-isolation", Kind::WorktreeMisdetected, ""),
    (
        "workflow-drift",
        Kind::WorkflowValidatorMissing,
        r"does not declare \S+$|names unknown validator",
    ),
    ("workflow-drift", Kind::WorkflowDrift, ""),
    ("acceptance-items", Kind::AcceptanceUnchecked, ""),
    ("loop-config", Kind::VerificationNotRunnable, ""),
    (
        "loop-state",
        Kind::VerificationNotRunnable,
        r"could not be written",
    ),
    ("loop-state", Kind::LedgerMalformed, ""),
    ("loop-environment", Kind::VerificationNotRunnable, ""),
    ("loop-build", Kind::BuildFailing, ""),
    ("loop-test", Kind::TestFailing, ""),
    ("loop-performance", Kind::PerformanceCritical, ""),
    ("loop-standards", Kind::StandardsViolation, ""),
    ("loop-escalation", Kind::TestFailing, ""),
    ("loop-limit", Kind::BuildFailing, r"^V1_BUILD"),
    ("loop-limit", Kind::PerformanceCritical, r"^V3_PERFORMANCE"),
    ("loop-limit", Kind::StandardsViolation, r"^V5_STANDARD"),
    ("loop-limit", Kind::TestFailing, ""),
    (
        "delivery-documents",
        Kind::ChangelistIncomplete,
        r"^the changelist does not name",
    ),
    (
        "delivery-documents",
        Kind::DeliveryDocWrongRequirement,
        r"is a delivery document of|names another requirement|^\S+ does not name \S+$",
    ),
    ("delivery-documents", Kind::DeliveryDocMissing, ""),
    (
        "skein-acceptance",
        Kind::LedgerFileMissing,
        r"^the PRD \S+ does not exist$",
    ),
    ("skein-acceptance", Kind::AcceptanceUnchecked, ""),
    ("skein-contract", Kind::ContractViolated, ""),
    (
        "skein-conflict",
        Kind::DuplicateResponsibility,
        r"is defined twice",
    ),
    (
        "skein-conflict",
        Kind::ContractsContradict,
        r"contradict each other",
    ),
    ("skein-conflict", Kind::SignatureConflict, ""),
];

/// The reference gate's mapping as `kinds:` rules, the same shape a scenario gives for an external
/// verifier: its findings are typed by the same code as anyone's.
pub fn gate_kind_rules() -> Vec<KindRule> {
    GATE_KINDS
        .iter()
        .map(|(check, kind, title)| KindRule {
            kind: *kind,
            class: None,
            validator: Some(format!("^{}$", regex::escape(check))),
            title: (!title.is_empty()).then(|| (*title).to_owned()),
            description: None,
        })
        .collect()
}

/// A gate that runs inside this process. Its report goes through the same checks as any
/// external pipeline's: gatebench does not trust its own gate more than anyone else's.
pub struct InProcess {
    pub name: &'static str,
    pub gate: fn(&Path, &GateOptions) -> Report,
    /// How its findings map onto the taxonomy.
    pub kinds: Vec<KindRule>,
}

impl Pipeline for InProcess {
    fn name(&self) -> &str {
        self.name
    }

    fn kind_rules(&self) -> Vec<KindRule> {
        self.kinds.clone()
    }

    fn run_round(&self, input: &RoundInput<'_>) -> RoundRun {
        // The repository is data from a fixture: the commands it declares run sandboxed.
        let options = GateOptions {
            base_ref: input.base_ref.to_owned(),
            sandbox_commands: true,
            pinned: Some(input.pinned.clone()),
        };
        // A read or write the machine refused inside the gate (no space, a file size limit, too
        // many open files, no memory) makes the round an error: the verdict the gate gave then
        // would be the machine's (a full disk made a golden a false alarm; too few descriptors
        // turned FAILs into BLOCKED).
        let (report, faults) =
            gatebench_gate::fault::collect(|| (self.gate)(input.work_dir, &options));
        if let Some(first) = faults.first() {
            return RoundRun {
                output: RoundOutput::Error(format!(
                    "the machine failed the built-in gate ({} environment fault(s)), so its \
                     verdict is not the repository's: {first}",
                    faults.len()
                )),
                process: None,
                report_file: None,
            };
        }
        let output = match serde_json::to_value(&report) {
            Ok(value) => match gatebench_report::check::check_value(value) {
                Ok((report, value)) => RoundOutput::Report(Box::new(report), value),
                Err(reason) => RoundOutput::Error(reason.to_string()),
            },
            Err(e) => RoundOutput::Error(format!("the report could not be serialized: {e}")),
        };
        RoundRun {
            output,
            process: None,
            report_file: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::typing::KindMap;

    fn finding(validator: &str, title: &str) -> gatebench_report::Finding {
        serde_json::from_value(serde_json::json!({
            "title": title, "severity": 9, "description": "", "validator": validator,
        }))
        .unwrap()
    }

    #[test]
    fn every_gate_check_maps_to_a_kind_and_titles_choose_among_several() {
        let map = KindMap::new(&gate_kind_rules()).unwrap();
        for (check, _, _) in GATE_KINDS {
            assert!(
                map.kind_of(&finding(check, "anything")).is_some(),
                "{check}"
            );
        }
        assert_eq!(
            map.kind_of(&finding(
                "ledger-schema",
                "specs/f/convergence-report.json is missing"
            )),
            Some(Kind::LedgerFileMissing)
        );
        assert_eq!(
            map.kind_of(&finding(
                "ledger-schema",
                "specs/f/requirements.json: expected value"
            )),
            Some(Kind::LedgerMalformed)
        );
        assert_eq!(map.kind_of(&finding("no-such-check", "x")), None);
    }

    /// In a child process (the test binary run again for this one test): materializes the loop
    /// golden `loop-wordcount`, then lowers a limit (`nofile`: no descriptor left to open;
    /// `fsize`: no byte may be written, SIGXFSZ ignored so a write fails with EFBIG) and runs
    /// the built-in gate's round, printing what it came to.
    fn child_round(fault: &str) {
        let corpus =
            crate::corpus::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")).unwrap();
        let fixture = corpus.get("loop-wordcount").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let m = crate::repo::materialize::materialize(fixture, &dir.path().join("r")).unwrap();
        let pipeline = crate::pipeline::select::from_spec(
            &crate::corpus::scenario::PipelineSpec::Builtin,
            Path::new("."),
        );
        let input = RoundInput {
            work_dir: &m.work_dir,
            repo_dir: &m.repo_dir,
            case_id: "c",
            round: 1,
            trial: 0,
            base_ref: "main",
            scratch_dir: scratch.path(),
            pinned: &m.pinned,
        };
        // SAFETY: setrlimit and signal on this process, which only runs this test.
        unsafe {
            match fault {
                "nofile" => {
                    // The lowest descriptor not open: every one below it is, so none is left.
                    let lowest = (0..1024).find(|fd| libc::fcntl(*fd, libc::F_GETFD) == -1);
                    let n = lowest.unwrap() as libc::rlim_t;
                    let mut limit: libc::rlimit = std::mem::zeroed();
                    assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit), 0);
                    limit.rlim_cur = n;
                    assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &limit), 0);
                }
                "fsize" => {
                    libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                    let mut limit: libc::rlimit = std::mem::zeroed();
                    assert_eq!(libc::getrlimit(libc::RLIMIT_FSIZE, &mut limit), 0);
                    limit.rlim_cur = 0;
                    assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &limit), 0);
                }
                _ => unreachable!(),
            }
        }
        let out = match pipeline.run_round(&input).output {
            RoundOutput::Error(e) => format!("error: {e}"),
            RoundOutput::Timeout(e) => format!("timeout: {e}"),
            RoundOutput::Report(r, _) => format!(
                "verdict: {:?} {:?}",
                r.overall,
                r.findings
                    .iter()
                    .map(|f| &f.description)
                    .collect::<Vec<_>>()
            ),
        };
        // Written whole with one system call: no file is opened, no descriptor needed.
        let line = format!("ROUND {out}\n");
        unsafe { libc::write(1, line.as_ptr().cast(), line.len()) };
    }

    /// A fault of the machine inside a built-in round (too few file descriptors, a file size limit
    /// standing for a full disk) is the round's error, never a verdict: on main the first gave
    /// BLOCKED (an omission "caught") and the second FAIL on a golden (a false alarm).
    #[test]
    fn a_machine_fault_inside_the_builtin_gate_is_an_error_not_a_verdict() {
        if let Ok(fault) = std::env::var("GATEBENCH_TEST_FAULT") {
            child_round(&fault);
            return;
        }
        for fault in ["nofile", "fsize"] {
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "pipeline::builtin::tests::a_machine_fault_inside_the_builtin_gate_is_an_error_not_a_verdict",
                    "--nocapture",
                    "--test-threads",
                    "1",
                ])
                .env("GATEBENCH_TEST_FAULT", fault)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            // The test harness's "test ... " may stand before it on its line.
            let line = stdout
                .lines()
                .find_map(|l| l.find("ROUND ").map(|at| &l[at..]))
                .unwrap_or_else(|| {
                    panic!(
                        "{fault}: {stdout}\n{}",
                        String::from_utf8_lossy(&out.stderr)
                    )
                });
            assert!(
                line.starts_with("ROUND error: the machine failed the built-in gate"),
                "{fault}: {line}"
            );
        }
    }
}
