//! Tests only: the verification loop, the delivery-documents gate and skein-check on the golden
//! ledger repository given a Verification section; each test fails when the rule it names is
//! removed or weakened. Every dimension's script counts its runs in a file outside the
//! repository, so a test can prove what ran and what did not.

use std::path::{Path, PathBuf};

use crate::testutil::{describe, feature, Golden, TestRepo};
use crate::verification_loop::loop_report::EXTENSION_KEY;
use crate::verification_loop::state_file::{self, DimensionStatus, LoopStatus, ReadState, Step};
use gatebench_report::{OverallResult, Report, SkillStatus, Status};

const ID: &str = "SV-1";

fn prd() -> String {
    format!(
        "# {ID}: cancel a subscription\n\n## 验收标准\n\n- [x] an owner can cancel\n- [x] a non-owner is refused\n\n## Contracts\n\n- C1: `src/subscription/cancel.py` defines `cancel(subscription, user)`\n- C2: `src/subscription/cancel.py` exists\n- C3: `src/subscription/cancel.py` contains `Forbidden`\n"
    )
}

fn prd_path() -> String {
    feature("prd.md")
}

/// The golden ledger repository with a Verification section, four counting scripts, a PRD and
/// the delivery documents.
struct Loop {
    golden: Golden,
    counters: tempfile::TempDir,
    agents: String,
}

impl Loop {
    fn new() -> Loop {
        let counters = tempfile::tempdir().expect("counter dir");
        let mut this = Loop {
            golden: Golden::new(),
            counters,
            agents: format!(
                "# Agents\n\n## Verification\n\n- requirementId: {ID}\n- buildCommand: `sh scripts/build.sh`\n- testCommand: `sh scripts/test.sh`\n- perfCommand: `sh scripts/perf.sh`\n- lintCommand: `sh scripts/lint.sh`\n- commandTimeoutSeconds: 20\n- prd: {}\n",
                prd_path()
            ),
        };
        for (name, step) in [
            ("build", Step::Build),
            ("test", Step::Test),
            ("perf", Step::Performance),
            ("lint", Step::Standard),
        ] {
            this.script(name, step, "echo ok\n");
        }
        this.base(".gitignore", "docs/delivery/.state/\n");
        this.golden.replace(
            &feature("tasks/T2.md"),
            "\"tests/**\"]",
            "\"tests/**\", \"docs/**\"]",
        );
        this.golden.set(&prd_path(), &prd());
        this.golden.set(
            &format!("docs/delivery/{ID}-tech-ref.md"),
            &format!(
                "# {ID} tech-ref\n\nInterface: `cancel(subscription, user)`. Core function: \
                 owners only. Data flow: in memory. Configuration: none. Notes: none.\n"
            ),
        );
        this.golden.set(
            &format!("docs/delivery/{ID}-review-report.md"),
            &format!(
                "# {ID} review report\n\nV4 audit: no Critical open. Comment and deleted-code \
                 check: clean. Git conventions: clean. Score: 90/100.\nV1-V5 pass. {ID} is \
                 deliverable.\n"
            ),
        );
        this
    }

    /// A file committed on `main` (and so unchanged on the branch).
    fn base(&mut self, path: &str, content: &str) -> &mut Loop {
        self.golden.base.insert(path.to_owned(), content.to_owned());
        self.golden.head.insert(path.to_owned(), content.to_owned());
        self
    }

    fn counter(&self, step: Step) -> PathBuf {
        self.counters.path().join(step.key())
    }

    /// The script of one dimension: counts its run, then runs `body`.
    fn script_text(&self, step: Step, body: &str) -> String {
        format!("echo run >> '{}'\n{body}", self.counter(step).display())
    }

    fn script(&mut self, name: &str, step: Step, body: &str) -> &mut Loop {
        let text = self.script_text(step, body);
        self.base(&format!("scripts/{name}.sh"), &text)
    }

    /// How many times a dimension's script ran.
    fn runs(&self, step: Step) -> usize {
        std::fs::read_to_string(self.counter(step))
            .map(|t| t.lines().count())
            .unwrap_or(0)
    }

    fn runs_all(&self) -> [usize; 4] {
        [
            self.runs(Step::Build),
            self.runs(Step::Test),
            self.runs(Step::Performance),
            self.runs(Step::Standard),
        ]
    }

    /// Builds the repository, with a changelist naming every file the branch changes.
    fn build(&mut self) -> TestRepo {
        self.prepare();
        self.golden.build()
    }

    /// Writes AGENTS.md and a changelist naming every file the branch changes.
    fn prepare(&mut self) {
        let agents = self.agents.clone();
        self.base("AGENTS.md", &agents);
        let changelist = format!("docs/delivery/{ID}-changelist.md");
        let mut text = format!("# {ID} changelist\n\n");
        for (path, content) in &self.golden.head {
            if path.starts_with("docs/delivery/") {
                continue;
            }
            if self.golden.base.get(path) != Some(content) {
                text.push_str(&format!("- `{path}`\n"));
            }
        }
        self.golden.set(&changelist, &text);
    }
}

/// One gate run; its report must pass the harness's own report checks.
fn round(repo: &TestRepo) -> Report {
    let report = repo.gate();
    let value = serde_json::to_value(&report).expect("report serializes");
    if let Err(why) = gatebench_report::check::check_value(value) {
        panic!("the loop's report fails the report checks: {why}\n{report:#?}");
    }
    report
}

fn skill(report: &Report, key: &str) -> (SkillStatus, String) {
    report
        .skill_results
        .iter()
        .find(|s| s.skill == key)
        .map(|s| (s.status, s.notes.clone()))
        .unwrap_or_else(|| panic!("no skill {key} in {:#?}", report.skill_results))
}

fn statuses(report: &Report) -> Vec<SkillStatus> {
    report.skill_results.iter().map(|s| s.status).collect()
}

fn state(repo: &TestRepo) -> state_file::VerificationState {
    match state_file::read(repo.path(), ID) {
        ReadState::Found(state) => *state,
        other => panic!("no readable state: {other:?}"),
    }
}

fn validators(report: &Report) -> Vec<String> {
    report
        .findings
        .iter()
        .filter_map(|f| f.validator.clone())
        .collect()
}

use SkillStatus::{Blocked, Failed, NotRun, Passed, Skipped};

#[test]
fn a_repository_without_a_verification_section_is_judged_as_before() {
    let repo = Golden::new().build();
    let report = round(&repo);
    let skills: Vec<&str> = report
        .skill_results
        .iter()
        .map(|s| s.skill.as_str())
        .collect();
    assert_eq!(
        skills,
        [
            "loom-validators",
            "detail-ledger",
            "pipeline-config",
            "independent-checks"
        ]
    );
    assert!(!repo.path().join("docs/delivery/.state").exists());
    assert!(!report.extra.contains_key(EXTENSION_KEY));
}

#[test]
fn every_dimension_runs_in_round_one_and_the_state_file_validates_against_the_committed_schema() {
    let mut lp = Loop::new();
    let repo = lp.build();
    let report = round(&repo);
    assert_eq!(
        report.overall.result,
        OverallResult::Pass,
        "{}",
        describe(&report)
    );
    assert_eq!(statuses(&report), [Passed; 6]);
    assert_eq!(lp.runs_all(), [1, 1, 1, 1]);
    let path = repo.path().join(state_file::path_for(ID));
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("state file")).expect("json");
    let schema_file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../schemas")
        .join("verification-state.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_file).expect("committed schema"))
            .expect("schema json");
    let validator = jsonschema::validator_for(&schema).expect("valid schema");
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let state = state(&repo);
    assert_eq!(state.status, LoopStatus::Pass);
    assert_eq!(state.current_iteration, 1);
    assert!(state.rerun_plan.is_empty());
    assert_eq!(
        state.dimensions.get(Step::Alignment).passed_iteration,
        Some(1)
    );
}

#[test]
fn a_second_round_runs_only_the_dimensions_that_failed() {
    let mut lp = Loop::new();
    let fixed = lp.counters.path().join("fixed");
    let body = format!(
        "if [ -e '{}' ]; then echo 'ok 1 - owner'; exit 0; fi\necho 'not ok 1 - owner'\nexit 1\n",
        fixed.display()
    );
    lp.script("test", Step::Test, &body);
    let repo = lp.build();
    let first = round(&repo);
    assert_eq!(first.overall.result, OverallResult::IssuesFound);
    assert_eq!(validators(&first), ["loop-test"]);
    assert_eq!(lp.runs_all(), [1, 1, 1, 1]);
    assert_eq!(state(&repo).rerun_plan, [Step::Test]);
    std::fs::write(&fixed, "").expect("mark fixed");
    // An unstaged edit of the code makes the evidence stale: V4 fails if it runs again.
    repo.write("src/subscription/cancel.py", "# edited\n");
    let second = round(&repo);
    assert_eq!(
        second.overall.result,
        OverallResult::Pass,
        "{}",
        describe(&second)
    );
    assert_eq!(lp.runs_all(), [1, 2, 1, 1]);
    assert_eq!(
        statuses(&second),
        [Skipped, Passed, Skipped, Skipped, Skipped, Passed]
    );
    assert!(skill(&second, "V1_BUILD")
        .1
        .contains("pass in round 1: not re-run"));
    assert_eq!(state(&repo).current_iteration, 2);
}

#[test]
fn a_resumed_round_re_runs_nothing_that_had_passed() {
    let mut lp = Loop::new();
    let repo = lp.build();
    assert_eq!(round(&repo).overall.result, OverallResult::Pass);
    // The state as a run killed during V3 leaves it: V1 and V2 passed, V3..V5 still pending.
    let mut interrupted = state(&repo);
    interrupted.status = LoopStatus::Running;
    for step in [Step::Performance, Step::Alignment, Step::Standard] {
        let mut record = interrupted.dimensions.get(step);
        record.status = DimensionStatus::Pending;
        record.passed_iteration = None;
        interrupted.dimensions.put(step, record);
    }
    interrupted.rerun_plan = vec![Step::Performance, Step::Alignment, Step::Standard];
    state_file::write(repo.path(), &interrupted).expect("write state");
    let resumed = round(&repo);
    assert_eq!(
        resumed.overall.result,
        OverallResult::Pass,
        "{}",
        describe(&resumed)
    );
    assert_eq!(lp.runs_all(), [1, 1, 2, 2]);
    assert_eq!(
        statuses(&resumed),
        [Skipped, Skipped, Passed, Passed, Passed, Passed]
    );
    assert_eq!(resumed.extra[EXTENSION_KEY]["start"], "resumed");
    assert_eq!(state(&repo).current_iteration, 1);
}

#[test]
fn the_same_test_point_failing_twice_escalates_and_is_not_tried_a_third_time() {
    let mut lp = Loop::new();
    lp.script(
        "test",
        Step::Test,
        "echo 'not ok 1 - owner can cancel'\nexit 1\n",
    );
    let repo = lp.build();
    let first = round(&repo);
    assert_eq!(first.overall.result, OverallResult::IssuesFound);
    assert!(!validators(&first).contains(&"loop-escalation".to_owned()));
    let second = round(&repo);
    assert_eq!(second.status, Status::Blocked, "{}", describe(&second));
    let escalation = second
        .findings
        .iter()
        .find(|f| f.validator.as_deref() == Some("loop-escalation"))
        .expect("an escalation finding");
    assert!(escalation.title.contains("`owner can cancel`"));
    assert!(escalation.description.contains("Round 1:"));
    assert!(escalation.description.contains("Round 2:"));
    assert_eq!(
        second.extra[EXTENSION_KEY]["escalation"]["testPoints"][0],
        "owner can cancel"
    );
    let third = round(&repo);
    assert_eq!(third.status, Status::Blocked);
    assert_eq!(lp.runs(Step::Test), 2, "V2 ran a third time");
    assert_eq!(skill(&third, "V2_TEST").0, NotRun);
    assert!(validators(&third).contains(&"loop-escalation".to_owned()));
}

#[test]
fn different_test_points_failing_in_consecutive_rounds_do_not_escalate() {
    let mut lp = Loop::new();
    let body = format!(
        "if [ \"$(wc -l < '{}')\" -eq 1 ]; then echo 'not ok 1 - a'; else echo 'not ok 1 - b'; fi\nexit 1\n",
        lp.counter(Step::Test).display()
    );
    lp.script("test", Step::Test, &body);
    let repo = lp.build();
    assert_eq!(
        state_of_round(&repo),
        (OverallResult::IssuesFound, LoopStatus::Running)
    );
    assert_eq!(state(&repo).dimensions.get(Step::Test).failed_items, ["a"]);
    assert_eq!(
        state_of_round(&repo),
        (OverallResult::IssuesFound, LoopStatus::Running)
    );
    assert_eq!(state(&repo).dimensions.get(Step::Test).failed_items, ["b"]);
}

fn state_of_round(repo: &TestRepo) -> (OverallResult, LoopStatus) {
    let report = round(repo);
    (report.overall.result, state(repo).status)
}

#[test]
fn a_dimension_still_failing_at_the_limit_is_fail_and_no_further_round_runs() {
    let mut lp = Loop::new();
    lp.agents.push_str("- maxIterations: 2\n");
    lp.script(
        "lint",
        Step::Standard,
        "echo 'src/x.py:1: error: bad'\nexit 1\n",
    );
    let repo = lp.build();
    assert_eq!(
        state_of_round(&repo),
        (OverallResult::IssuesFound, LoopStatus::Running)
    );
    let second = round(&repo);
    assert_eq!(second.overall.result, OverallResult::IssuesFound);
    assert!(validators(&second).contains(&"loop-limit".to_owned()));
    assert_eq!(state(&repo).status, LoopStatus::Fail);
    assert!(state(&repo).rerun_plan.is_empty());
    let third = round(&repo);
    assert_eq!(third.overall.result, OverallResult::IssuesFound);
    assert_eq!(lp.runs(Step::Standard), 2, "a round ran past the limit");
    assert_eq!(skill(&third, "V5_STANDARD").0, NotRun);
    assert_eq!(skill(&third, "V1_BUILD").0, Skipped);
    assert!(validators(&third).contains(&"loop-limit".to_owned()));
}

#[test]
fn a_command_that_cannot_start_blocks_and_is_retried_alone_after_a_fix() {
    let mut lp = Loop::new();
    let good = lp.agents.clone();
    lp.agents = lp
        .agents
        .replace("`sh scripts/build.sh`", "`gatebench-no-such-compiler`");
    let repo = lp.build();
    let first = round(&repo);
    assert_eq!(first.status, Status::Blocked, "{}", describe(&first));
    assert_eq!(skill(&first, "V1_BUILD").0, Blocked);
    assert_eq!(validators(&first), ["loop-environment"]);
    assert_eq!(lp.runs_all(), [0, 1, 1, 1]);
    // The fix restores the command and, since AGENTS.md now differs from main, names it in the
    // changelist.
    let changelist = format!("docs/delivery/{ID}-changelist.md");
    let named = format!("{}- `AGENTS.md`\n", lp.golden.head[&changelist]);
    repo.commit(&[("AGENTS.md", &good), (&changelist, &named)]);
    let second = round(&repo);
    assert_eq!(
        second.overall.result,
        OverallResult::Pass,
        "{}",
        describe(&second)
    );
    assert_eq!(lp.runs_all(), [1, 1, 1, 1]);
    let history = state(&repo).fix_history;
    assert_eq!(history.len(), 2);
    assert!(
        history[1].summary.contains("2 file(s) changed: AGENTS.md"),
        "{history:?}"
    );
}

#[test]
fn a_missing_command_is_reported_and_not_guessed() {
    let mut lp = Loop::new();
    lp.agents = lp
        .agents
        .replace("- lintCommand: `sh scripts/lint.sh`\n", "");
    let repo = lp.build();
    let report = round(&repo);
    assert_eq!(report.status, Status::Blocked);
    assert_eq!(skill(&report, "V5_STANDARD").0, Blocked);
    assert!(report.findings[0].title.contains("lintCommand"));
    assert_eq!(lp.runs(Step::Standard), 0);
}

#[test]
fn a_warning_only_round_passes_with_its_warnings_recorded_and_no_finding() {
    let mut lp = Loop::new();
    lp.script(
        "lint",
        Step::Standard,
        "echo 'src/a.py:3: warning: long line'\n",
    );
    let repo = lp.build();
    let report = round(&repo);
    assert_eq!(report.overall.result, OverallResult::Pass);
    assert!(report.findings.is_empty() && report.issues.is_empty());
    let (status, notes) = skill(&report, "V5_STANDARD");
    assert_eq!(status, Passed);
    assert!(notes.contains("warn") && notes.contains("src/a.py:3: warning: long line"));
    assert_eq!(
        report.extra[EXTENSION_KEY]["warnings"][0]["item"],
        "src/a.py:3: warning: long line"
    );
    let state = state(&repo);
    assert_eq!(
        state.dimensions.get(Step::Standard).status,
        DimensionStatus::Warn
    );
    assert_eq!(
        state.dimensions.standard.warning_items,
        ["src/a.py:3: warning: long line"]
    );
}

#[test]
fn the_state_file_is_neither_source_nor_change_even_when_not_ignored() {
    let mut lp = Loop::new();
    lp.base(".gitignore", "# nothing ignored\n");
    let repo = lp.build();
    assert_eq!(round(&repo).overall.result, OverallResult::Pass);
    // A passed loop is over: the next run is a new loop, V4 included, with the state file
    // lying untracked in the work tree.
    let again = round(&repo);
    assert_eq!(
        again.overall.result,
        OverallResult::Pass,
        "{}",
        describe(&again)
    );
    assert_eq!(lp.runs_all(), [2, 2, 2, 2]);
    assert!(again
        .scope
        .files
        .iter()
        .all(|f| !f.path.starts_with("docs/delivery/.state")));
    // Nor does it choose the scope's mode: the untracked state file is no unstaged change, and
    // the branch's changes stay in scope.
    assert_eq!(again.scope.mode, "branch");
    assert!(again
        .scope
        .included_files
        .iter()
        .any(|f| f.path == "src/subscription/cancel.py"));
}

#[test]
fn the_rounds_scope_is_the_work_tree_as_the_round_began() {
    let mut lp = Loop::new();
    // The build leaves an output nothing ignores: a change, but one the round itself made.
    lp.script(
        "build",
        Step::Build,
        "mkdir -p out && echo built > out/log.txt\n",
    );
    let repo = lp.build();
    let report = round(&repo);
    assert!(repo.path().join("out/log.txt").is_file());
    // Nothing was staged or unstaged when the round began: the branch is the scope, and the
    // build's output is neither in it nor excluded from it.
    assert_eq!(report.scope.mode, "branch", "{}", describe(&report));
    assert!(report
        .scope
        .included_files
        .iter()
        .chain(report.scope.files.iter())
        .any(|f| f.path == "src/subscription/cancel.py"));
    let named = |path: &str| {
        report.scope.included_files.iter().any(|f| f.path == path)
            || report.scope.excluded_files.iter().any(|f| f.path == path)
    };
    assert!(!named("out/log.txt"));
    // The next round begins with it in the work tree: unstaged, and so the scope.
    let next = round(&repo);
    assert_eq!(next.scope.mode, "unstaged", "{}", describe(&next));
    assert!(next
        .scope
        .included_files
        .iter()
        .any(|f| f.path == "out/log.txt"));
}

#[test]
fn an_unreadable_state_file_blocks_with_a_finding_and_runs_nothing() {
    let mut lp = Loop::new();
    let repo = lp.build();
    repo.write(&state_file::path_for(ID), "{\"requirementId\": \"SV-1\"}\n");
    let report = round(&repo);
    assert_eq!(report.status, Status::Blocked);
    assert_eq!(validators(&report), ["loop-state"]);
    assert_eq!(statuses(&report), [NotRun; 6]);
    assert_eq!(lp.runs_all(), [0, 0, 0, 0]);
}

#[test]
fn an_invalid_verification_section_blocks_and_runs_nothing() {
    let mut lp = Loop::new();
    lp.agents.push_str("- maxIterations: many\n");
    let repo = lp.build();
    let report = round(&repo);
    assert_eq!(report.status, Status::Blocked);
    assert_eq!(validators(&report), ["loop-config"]);
    assert_eq!(lp.runs_all(), [0, 0, 0, 0]);
}

#[test]
fn a_changelist_that_misses_a_changed_file_names_that_file() {
    let mut lp = Loop::new();
    lp.prepare();
    let changelist = format!("docs/delivery/{ID}-changelist.md");
    let complete = lp.golden.head[&changelist].clone();
    lp.golden
        .replace(&changelist, "- `tests/test_cancel.py`\n", "");
    let repo = lp.golden.build();
    let report = round(&repo);
    assert_eq!(report.overall.result, OverallResult::IssuesFound);
    assert_eq!(
        validators(&report),
        ["delivery-documents"],
        "{}",
        describe(&report)
    );
    assert!(report.findings[0].title.contains("tests/test_cancel.py"));
    assert_eq!(state(&repo).rerun_plan, [Step::Delivery]);
    // The next round checks the delivery documents alone.
    repo.commit(&[(&changelist, &complete)]);
    let second = round(&repo);
    assert_eq!(
        second.overall.result,
        OverallResult::Pass,
        "{}",
        describe(&second)
    );
    assert_eq!(lp.runs_all(), [1, 1, 1, 1]);
    assert_eq!(
        statuses(&second),
        [Skipped, Skipped, Skipped, Skipped, Skipped, Passed]
    );
}

#[test]
fn a_missing_or_foreign_delivery_document_is_reported_at_its_path() {
    let mut lp = Loop::new();
    lp.golden.remove(&format!("docs/delivery/{ID}-tech-ref.md"));
    lp.golden.set(
        &format!("docs/delivery/{ID}-review-report.md"),
        "# SV-1 review report\n\nSV-2 is deliverable.\n",
    );
    lp.golden
        .set("docs/delivery/SV-2-changelist.md", "# SV-2\n");
    let repo = lp.build();
    let report = round(&repo);
    let at: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.validator.as_deref() == Some("delivery-documents"))
        .filter_map(|f| f.location.as_ref().map(|l| l.path.as_str()))
        .collect();
    assert!(
        at.contains(&"docs/delivery/SV-1-tech-ref.md"),
        "{}",
        describe(&report)
    );
    assert!(
        at.contains(&"docs/delivery/SV-1-review-report.md"),
        "{}",
        describe(&report)
    );
    assert!(
        at.contains(&"docs/delivery/SV-2-changelist.md"),
        "{}",
        describe(&report)
    );
}

#[test]
fn unchecked_acceptance_items_fail_and_checked_ones_are_skipped() {
    let mut lp = Loop::new();
    let text = prd().replace(
        "- [x] a non-owner is refused",
        "- [ ] a non-owner is refused",
    );
    lp.golden.set(&prd_path(), &text);
    let repo = lp.build();
    let report = round(&repo);
    let findings: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.validator.as_deref() == Some("skein-acceptance"))
        .collect();
    assert_eq!(findings.len(), 1, "{}", describe(&report));
    assert!(findings[0].title.contains("a non-owner is refused"));
    assert_eq!(findings[0].location.as_ref().and_then(|l| l.line), Some(6));
    let notes = skill(&report, "V4_ALIGNMENT").1;
    assert!(
        notes.contains("acceptance 1 checked, 1 unchecked"),
        "{notes}"
    );
}

#[test]
fn every_contract_is_reported_pass_or_fail_one_by_one() {
    let mut lp = Loop::new();
    let text = prd()
        + "- C4: `src/subscription/cancel.py` defines `refund(subscription)`\n- C5: `README.md` contains `refunds`\n- C6: the code is clean\n";
    lp.golden.set(&prd_path(), &text);
    let repo = lp.build();
    let report = round(&repo);
    let contracts = report.extra[EXTENSION_KEY]["contracts"]
        .as_array()
        .expect("contracts")
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap_or("").to_owned(),
                c["result"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect::<Vec<_>>();
    let want: Vec<(String, String)> = [
        ("C1", "pass"),
        ("C2", "pass"),
        ("C3", "pass"),
        ("C4", "fail"),
        ("C5", "fail"),
        ("C6", "fail"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(contracts, want);
    let failed: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.validator.as_deref() == Some("skein-contract"))
        .map(|f| f.title.as_str())
        .collect();
    assert_eq!(failed.len(), 3, "{failed:?}");
    assert!(skill(&report, "V4_ALIGNMENT")
        .1
        .contains("C1 pass, C2 pass, C3 pass, C4 fail, C5 fail, C6 fail"));
}

#[test]
fn a_call_that_does_not_match_the_signature_is_reported_with_both_locations() {
    let mut lp = Loop::new();
    lp.golden.replace(
        "tests/test_cancel.py",
        "cancel(Sub(\"alice\"), \"bob\")",
        "cancel(Sub(\"alice\"))",
    );
    let repo = lp.build();
    let report = round(&repo);
    let conflict = report
        .findings
        .iter()
        .find(|f| f.validator.as_deref() == Some("skein-conflict"))
        .unwrap_or_else(|| panic!("no conflict:\n{}", describe(&report)));
    let location = conflict.location.as_ref().expect("located");
    assert_eq!(location.path, "tests/test_cancel.py");
    assert_eq!(location.line, Some(18));
    assert!(
        conflict.title.contains("src/subscription/cancel.py:8"),
        "{}",
        conflict.title
    );
    assert!(conflict.description.contains("tests/test_cancel.py:18"));
}

#[test]
fn a_second_definition_of_a_contracted_function_is_reported_with_both_locations() {
    let mut lp = Loop::new();
    let tests = lp.golden.head["tests/test_cancel.py"].clone()
        + "\n\ndef cancel(subscription, user):\n    return subscription\n";
    lp.golden.set("tests/test_cancel.py", &tests);
    let repo = lp.build();
    let report = round(&repo);
    let conflict = report
        .findings
        .iter()
        .find(|f| f.validator.as_deref() == Some("skein-conflict"))
        .unwrap_or_else(|| panic!("no conflict:\n{}", describe(&report)));
    assert!(conflict.title.contains("src/subscription/cancel.py:8"));
    assert!(
        conflict.title.contains("tests/test_cancel.py:21"),
        "{}",
        conflict.title
    );
    assert_eq!(
        conflict.location.as_ref().map(|l| l.path.as_str()),
        Some("tests/test_cancel.py")
    );
}

#[test]
fn contracts_that_contradict_each_other_are_reported_with_both_lines() {
    let mut lp = Loop::new();
    let text = prd() + "- C4: `src/subscription/cancel.py` defines `cancel(subscription)`\n";
    lp.golden.set(&prd_path(), &text);
    let repo = lp.build();
    let report = round(&repo);
    let conflict = report
        .findings
        .iter()
        .find(|f| f.validator.as_deref() == Some("skein-conflict"))
        .unwrap_or_else(|| panic!("no conflict:\n{}", describe(&report)));
    assert!(conflict.title.contains("C1 and C4"));
    assert!(conflict.description.contains(&format!("{}:10", prd_path())));
    assert!(conflict.description.contains(&format!("{}:13", prd_path())));
}

#[test]
fn a_prd_that_does_not_exist_fails_skein_check() {
    let mut lp = Loop::new();
    lp.golden.remove(&prd_path());
    let repo = lp.build();
    let report = round(&repo);
    assert_eq!(report.overall.result, OverallResult::IssuesFound);
    assert_eq!(validators(&report), ["skein-acceptance"]);
    assert_eq!(skill(&report, "V4_ALIGNMENT").0, Failed);
}

#[test]
fn a_limit_lowered_below_the_current_round_concludes_fail_without_another_round() {
    let mut lp = Loop::new();
    lp.script(
        "lint",
        Step::Standard,
        "echo 'src/x.py:1: error: bad'\nexit 1\n",
    );
    let repo = lp.build();
    assert_eq!(
        state_of_round(&repo),
        (OverallResult::IssuesFound, LoopStatus::Running)
    );
    let agents = format!("{}- maxIterations: 1\n", lp.agents);
    repo.commit(&[("AGENTS.md", &agents)]);
    let report = round(&repo);
    assert_eq!(report.overall.result, OverallResult::IssuesFound);
    assert!(validators(&report).contains(&"loop-limit".to_owned()));
    assert_eq!(
        lp.runs(Step::Standard),
        1,
        "a round ran past the lowered limit"
    );
    assert_eq!(state(&repo).status, LoopStatus::Fail);
}

#[test]
fn build_warnings_are_recorded_in_the_report_although_v1_has_no_warning_items() {
    let mut lp = Loop::new();
    lp.script("build", Step::Build, "echo 'warning: deprecated flag'\n");
    let repo = lp.build();
    let report = round(&repo);
    assert_eq!(report.overall.result, OverallResult::Pass);
    assert!(skill(&report, "V1_BUILD")
        .1
        .contains("warning: deprecated flag"));
    assert_eq!(
        report.extra[EXTENSION_KEY]["warnings"][0]["dimension"],
        "V1_BUILD"
    );
    let summary = state(&repo).dimensions.build.summary;
    assert!(summary.contains("warning: deprecated flag"), "{summary}");
}

#[test]
fn a_delivery_document_below_the_seeds_minimum_content_names_the_missing_topic() {
    let mut lp = Loop::new();
    lp.golden.replace(
        &format!("docs/delivery/{ID}-tech-ref.md"),
        " Data flow: in memory.",
        "",
    );
    lp.golden.replace(
        &format!("docs/delivery/{ID}-review-report.md"),
        " Score: 90/100.",
        "",
    );
    let repo = lp.build();
    let report = round(&repo);
    let titles: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.validator.as_deref() == Some("delivery-documents"))
        .map(|f| f.title.as_str())
        .collect();
    assert!(
        titles.contains(&"docs/delivery/SV-1-tech-ref.md does not cover the data flow"),
        "{}",
        describe(&report)
    );
    assert!(
        titles.contains(&"docs/delivery/SV-1-review-report.md does not cover a score"),
        "{}",
        describe(&report)
    );
    assert_eq!(titles.len(), 2, "{titles:?}");
}
