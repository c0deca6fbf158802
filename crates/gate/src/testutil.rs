//! Test support: a small, complete ledger repository ("the golden") built as a real git repository
//! with git2 (base commit on `main`, the feature branch as HEAD), which each validator test breaks
//! in exactly one way.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use git2::{Oid, Repository, RepositoryInitOptions, Signature, Time};
use serde_json::{json, Value};

use crate::{run_gate, GateOptions};
use gatebench_gittree as gittree;
use gatebench_report::{Finding, OverallResult, Report};

/// The feature folder of the golden.
pub const FEATURE: &str = "specs/subscription-cancel";

/// The repository path of a file of the feature folder.
pub fn feature(relative: &str) -> String {
    format!("{FEATURE}/{relative}")
}

const CANCEL_PY: &str = r#""""Cancel a subscription."""


class Forbidden(Exception):
    """Raised when someone other than the owner cancels."""


def cancel(subscription, user):
    if subscription.owner != user:
        raise Forbidden("only the owner may cancel")
    subscription.status = "cancelled"
    return subscription
"#;

const TEST_CANCEL_PY: &str = r#"import pytest

from src.subscription.cancel import Forbidden, cancel


class Sub:
    def __init__(self, owner):
        self.owner = owner
        self.status = "active"


def test_owner_can_cancel():
    assert cancel(Sub("alice"), "alice").status == "cancelled"


def test_non_owner_is_refused():
    with pytest.raises(Forbidden):
        cancel(Sub("alice"), "bob")
"#;

/// The files of the golden's HEAD, with placeholders `{{source-tree}}` and `{{sha256:PATH}}`
/// resolved when the repository is built (so edits made before `build` stay consistent, the way
/// a pipeline that re-records its receipts would leave them).
#[derive(Debug, Clone)]
pub struct Golden {
    pub base: BTreeMap<String, String>,
    pub head: BTreeMap<String, String>,
}

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("json values serialize");
    text.push('\n');
    text
}

fn details() -> Value {
    let mut details = serde_json::Map::new();
    for category in crate::ledger::DetailCategory::ALL {
        let name = category.as_str();
        let detail = match name {
            "happy-path" | "authorization" => json!({"conclusion": "applicable"}),
            _ => {
                json!({"conclusion": "not_applicable", "reason": format!("no {name} concern in a one-call cancel")})
            }
        };
        details.insert(name.to_owned(), detail);
    }
    Value::Object(details)
}

fn obligation(id: &str, category: &str, task: &str, code: &str, test: &str) -> Value {
    json!({
        "id": id,
        "category": category,
        "description": format!("{category} behaviour of cancel"),
        "status": "passing",
        "task_ids": [task],
        "code_refs": [code],
        "test_refs": [test],
        "evidence_receipts": ["receipts/tests/unit.json"],
        "test_plan": {
            "type": "unit",
            "setup": "an active subscription owned by alice",
            "action": "cancel it",
            "expected": ["the outcome the category asks for"],
            "forbidden": []
        }
    })
}

fn task_md(id: &str, obligation: &str, owns: &str) -> String {
    format!(
        "---\nid: {id}\ntitle: Task {id}\nobligations: [{obligation}]\nowns: [\"{owns}\"]\ndepends_on: []\n---\n# {id}\n\n## Acceptance\n- [x] {obligation} holds\n- [x] its test passes\n"
    )
}

impl Golden {
    pub fn new() -> Golden {
        let mut base = BTreeMap::new();
        base.insert("README.md".to_owned(), "# subscriptions\n".to_owned());
        let mut head = base.clone();
        let mut put = |path: String, content: String| {
            head.insert(path, content);
        };
        put("src/subscription/cancel.py".into(), CANCEL_PY.into());
        put("tests/test_cancel.py".into(), TEST_CANCEL_PY.into());
        put(
            feature("spec.md"),
            "# Cancel a subscription\n\nAn owner can cancel; nobody else can.\n".into(),
        );
        put(
            feature("plan.md"),
            "# Plan\n\nT1 implements cancel; T2 the owner check.\n".into(),
        );
        put(
            feature("requirements.json"),
            pretty(&json!({
                "schema_version": 1,
                "spec_sha256": format!("sha256:{{{{sha256:{}}}}}", feature("spec.md")),
                "requirements": [{
                    "id": "REQ-001",
                    "title": "An owner can cancel a subscription",
                    "type": "functional",
                    "priority": "must",
                    "status": "passing",
                    "details": details(),
                    "obligations": [
                        obligation("REQ-001-B01", "happy-path", "T1",
                            "src/subscription/cancel.py:8-12",
                            "tests/test_cancel.py::test_owner_can_cancel"),
                        obligation("REQ-001-B02", "authorization", "T2",
                            "src/subscription/cancel.py:9-10",
                            "tests/test_cancel.py::test_non_owner_is_refused"),
                    ]
                }]
            })),
        );
        let row = |obligation: &str, task: &str, code: &str, test: &str| {
            json!({"requirement_id": "REQ-001", "obligation_id": obligation, "task_id": task,
                   "code_refs": [code], "test_refs": [test],
                   "evidence_receipts": ["receipts/tests/unit.json"], "verdict": "passing"})
        };
        put(
            feature("traceability.json"),
            pretty(&json!({"schema_version": 1, "rows": [
                row("REQ-001-B01", "T1", "src/subscription/cancel.py:8-12",
                    "tests/test_cancel.py::test_owner_can_cancel"),
                row("REQ-001-B02", "T2", "src/subscription/cancel.py:9-10",
                    "tests/test_cancel.py::test_non_owner_is_refused"),
            ]})),
        );
        put(
            feature("tasks/T1.md"),
            task_md("T1", "REQ-001-B01", "src/subscription/**"),
        );
        put(
            feature("tasks/T2.md"),
            task_md("T2", "REQ-001-B02", "tests/**"),
        );
        for task in ["T1", "T2"] {
            put(
                feature(&format!("task-states/{task}.state.json")),
                pretty(
                    &json!({"schema_version": 1, "task_id": task, "status": "done",
                               "updated_at": "2026-07-20T00:00:00Z"}),
                ),
            );
        }
        for (task, obligation) in [("T1", "REQ-001-B01"), ("T2", "REQ-001-B02")] {
            put(
                feature(&format!("receipts/implementations/{task}.json")),
                pretty(
                    &json!({"schema_version": 1, "task_id": task, "git_tree": "{{source-tree}}",
                    "obligations": [{"id": obligation, "implementation_refs": [],
                                     "test_refs": [], "candidate_status": "candidate_implemented"}]}),
                ),
            );
            put(
                feature(&format!("receipts/reviews/{task}.json")),
                pretty(
                    &json!({"schema_version": 1, "task_id": task, "reviewer": "task-reviewer",
                    "verdict": "pass", "git_tree": "{{source-tree}}", "findings": []}),
                ),
            );
        }
        put(
            feature("evidence/unit.log"),
            "tests/test_cancel.py::test_owner_can_cancel PASSED [ 50%]\n\
             tests/test_cancel.py::test_non_owner_is_refused PASSED [100%]\n\
             ============ 2 passed in 0.01s ============\n"
                .into(),
        );
        put(
            feature("receipts/tests/unit.json"),
            pretty(
                &json!({"schema_version": 1, "git_tree": "{{source-tree}}", "diff_sha256": null,
                "command": "python3 -m pytest tests/test_cancel.py -v", "exit_code": 0,
                "log_file": "evidence/unit.log",
                "log_sha256": format!("sha256:{{{{sha256:{}}}}}", feature("evidence/unit.log")),
                "obligations": [
                    {"id": "REQ-001-B01", "test_ids": ["test_owner_can_cancel"], "result": "pass"},
                    {"id": "REQ-001-B02", "test_ids": ["test_non_owner_is_refused"], "result": "pass"}
                ]}),
            ),
        );
        put(
            feature("receipts/evaluations/omission-hunter.json"),
            pretty(
                &json!({"schema_version": 1, "evaluator": "omission-hunter", "verdict": "pass",
                "git_tree": "{{source-tree}}", "findings": []}),
            ),
        );
        let hash = |relative: &str| format!("sha256:{{{{sha256:{}}}}}", feature(relative));
        put(
            feature("receipts/approvals/spec-approval.json"),
            pretty(&json!({"schema_version": 1, "stage": "spec-approval",
                "artifacts": {"spec.md": hash("spec.md"),
                              "requirements.json": hash("requirements.json"),
                              "plan.md": hash("plan.md")},
                "approved_at": "2026-07-20T00:00:00.000Z", "approved_by": "human",
                "scope_changes": []})),
        );
        put(
            feature("findings/FINDING-001.json"),
            pretty(
                &json!({"schema_version": 1, "id": "FINDING-001", "severity": "HIGH",
                "type": "missing-behavior", "requirement_id": "REQ-001",
                "obligation_id": "REQ-001-B02", "status": "closed",
                "evidence": "the owner check was missing", "closed_by": "receipts/tests/unit.json"}),
            ),
        );
        put(
            feature("convergence-report.json"),
            pretty(&json!({"schema_version": 1, "git_tree": "{{source-tree}}",
                "obligations": [{"id": "REQ-001-B01", "classification": "implemented"},
                                {"id": "REQ-001-B02", "classification": "implemented"}],
                "unrequested": [], "blocking_findings": []})),
        );
        put(
            feature("pipeline.state.json"),
            pretty(&json!({"schema_version": 1, "pipeline_schema_version": 2,
                "current_step": "verification", "worktree": {"linked": false}})),
        );
        put(
            feature("verify-report.md"),
            "# Verify\n\nResult: PASS\n".into(),
        );
        Golden { base, head }
    }

    /// Replaces a file of HEAD.
    pub fn set(&mut self, path: &str, content: &str) -> &mut Golden {
        self.head.insert(path.to_owned(), content.to_owned());
        self
    }

    /// Removes a file from HEAD.
    pub fn remove(&mut self, path: &str) -> &mut Golden {
        assert!(
            self.head.remove(path).is_some(),
            "{path} is not in the golden"
        );
        self
    }

    /// Replaces text in a file of HEAD; the text must be there (a test that breaks nothing would
    /// pass for the wrong reason).
    pub fn replace(&mut self, path: &str, from: &str, to: &str) -> &mut Golden {
        let content = self
            .head
            .get_mut(path)
            .unwrap_or_else(|| panic!("{path} is not in the golden"));
        assert!(content.contains(from), "{path} does not contain {from:?}");
        *content = content.replacen(from, to, 1);
        self
    }

    /// Edits a JSON file of HEAD as a value.
    pub fn edit_json(&mut self, path: &str, edit: impl FnOnce(&mut Value)) -> &mut Golden {
        let content = self
            .head
            .get_mut(path)
            .unwrap_or_else(|| panic!("{path} is not in the golden"));
        let mut value: Value = serde_json::from_str(content).expect("golden json parses");
        let before = value.clone();
        edit(&mut value);
        assert_ne!(before, value, "the edit of {path} changed nothing");
        *content = pretty(&value);
        self
    }

    /// HEAD's files with every placeholder resolved.
    pub fn resolved_head(&self) -> BTreeMap<String, String> {
        let source_tree = gittree::source_tree_id(
            self.head
                .iter()
                .map(|(path, content)| (path.as_str(), content.as_bytes())),
        )
        .to_string();
        let blobs = |files: &BTreeMap<String, String>| -> Vec<(String, git2::Oid)> {
            files
                .iter()
                .map(|(path, content)| (path.clone(), gittree::blob_id(content.as_bytes())))
                .collect()
        };
        let (base_blobs, head_blobs) = (blobs(&self.base), blobs(&self.head));
        // Source files carry no placeholders, so the diff is known before any is filled.
        let diff_sha256 = gittree::diff_sha256(
            base_blobs.iter().map(|(path, oid)| (path.as_str(), *oid)),
            head_blobs.iter().map(|(path, oid)| (path.as_str(), *oid)),
        );
        let mut files: BTreeMap<String, String> = self
            .head
            .iter()
            .map(|(path, content)| {
                (
                    path.clone(),
                    content
                        .replace("{{source-tree}}", &source_tree)
                        .replace("{{diff-sha256}}", &diff_sha256),
                )
            })
            .collect();
        loop {
            let pending: Vec<String> = files
                .iter()
                .filter(|(_, content)| content.contains("{{sha256:"))
                .map(|(path, _)| path.clone())
                .collect();
            if pending.is_empty() {
                return files;
            }
            let mut progressed = false;
            for path in pending {
                let content = files[&path].clone();
                let Some(start) = content.find("{{sha256:") else {
                    continue;
                };
                let rest = &content[start + "{{sha256:".len()..];
                let Some(end) = rest.find("}}") else {
                    panic!("unclosed placeholder in {path}")
                };
                let target = &rest[..end];
                let target_content = files.get(target).unwrap_or_else(|| {
                    panic!("{path} hashes {target}, which is not in the golden")
                });
                if target_content.contains("{{sha256:") {
                    continue;
                }
                let hex = gittree::sha256_hex(target_content.as_bytes());
                let placeholder = format!("{{{{sha256:{target}}}}}");
                files.insert(path.clone(), content.replace(&placeholder, &hex));
                progressed = true;
            }
            assert!(progressed, "sha256 placeholders form a cycle");
        }
    }

    /// Builds the repository: `base` committed on `main`, HEAD committed on `feature` and checked
    /// out, a clean work tree.
    pub fn build(&self) -> TestRepo {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("repo");
        let mut options = RepositoryInitOptions::new();
        options.initial_head("main");
        let repo = Repository::init_opts(&root, &options).expect("init repo");
        let base = commit_files(&repo, &root, &self.base, None, "base");
        {
            let base_commit = repo.find_commit(base).expect("base commit");
            repo.branch("feature", &base_commit, false)
                .expect("feature branch");
        }
        repo.set_head("refs/heads/feature")
            .expect("switch to feature");
        let head_files = self.resolved_head();
        commit_files(&repo, &root, &head_files, Some(base), "head");
        TestRepo { dir, root }
    }
}

fn signature(seconds: i64) -> Signature<'static> {
    Signature::new("gatebench", "gatebench@invalid", &Time::new(seconds, 0)).expect("signature")
}

/// Makes the work tree hold exactly `files` and commits them on HEAD.
fn commit_files(
    repo: &Repository,
    root: &Path,
    files: &BTreeMap<String, String>,
    parent: Option<Oid>,
    message: &str,
) -> Oid {
    let mut index = repo.index().expect("index");
    let stale: Vec<String> = index
        .iter()
        .filter_map(|entry| String::from_utf8(entry.path).ok())
        .filter(|path| !files.contains_key(path))
        .collect();
    for path in stale {
        let _ = fs::remove_file(root.join(&path));
        index.remove_path(Path::new(&path)).expect("unstage");
    }
    for (path, content) in files {
        let full = root.join(path);
        fs::create_dir_all(full.parent().expect("files have a parent")).expect("mkdir");
        fs::write(&full, content).expect("write file");
        index.add_path(Path::new(path)).expect("stage");
    }
    index.write().expect("write index");
    let tree = repo
        .find_tree(index.write_tree().expect("write tree"))
        .expect("tree");
    let seconds = 1_767_225_600 + if parent.is_some() { 60 } else { 0 };
    let parents: Vec<git2::Commit> = parent
        .map(|id| repo.find_commit(id).expect("parent"))
        .into_iter()
        .collect();
    let parent_refs: Vec<&git2::Commit> = parents.iter().collect();
    repo.commit(
        Some("HEAD"),
        &signature(seconds),
        &signature(seconds),
        message,
        &tree,
        &parent_refs,
    )
    .expect("commit")
}

/// A built test repository.
pub struct TestRepo {
    /// Keeps the repository alive for the test.
    pub dir: tempfile::TempDir,
    pub root: PathBuf,
}

impl TestRepo {
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Writes a file into the work tree only (an unstaged or untracked change).
    pub fn write(&self, path: &str, content: &str) {
        let full = self.root.join(path);
        fs::create_dir_all(full.parent().expect("files have a parent")).expect("mkdir");
        fs::write(full, content).expect("write file");
    }

    /// Reads a file of the work tree.
    pub fn read(&self, path: &str) -> String {
        fs::read_to_string(self.root.join(path)).expect("read file")
    }

    /// Removes a file from the work tree only.
    pub fn delete(&self, path: &str) {
        fs::remove_file(self.root.join(path)).expect("remove file");
    }

    /// Writes files into the work tree and commits them on HEAD (a fix between loop rounds);
    /// files not named keep their content, untracked ones stay untracked.
    pub fn commit(&self, files: &[(&str, &str)]) {
        let repo = Repository::open(&self.root).expect("open repo");
        let mut index = repo.index().expect("index");
        for (path, content) in files {
            self.write(path, content);
            index.add_path(Path::new(path)).expect("stage");
        }
        index.write().expect("write index");
        let tree = repo
            .find_tree(index.write_tree().expect("write tree"))
            .expect("tree");
        let parent = repo
            .head()
            .and_then(|h| h.peel_to_commit())
            .expect("HEAD commit");
        let when = signature(parent.time().seconds() + 60);
        repo.commit(Some("HEAD"), &when, &when, "fix", &tree, &[&parent])
            .expect("commit");
    }

    /// Writes a file into the work tree and adds it to the index (a staged change).
    pub fn stage(&self, path: &str, content: &str) {
        self.write(path, content);
        let repo = Repository::open(&self.root).expect("open repo");
        let mut index = repo.index().expect("index");
        index.add_path(Path::new(path)).expect("stage");
        index.write().expect("write index");
    }

    /// Runs the reference gate with the default options.
    pub fn gate(&self) -> Report {
        run_gate(&self.root, &GateOptions::default())
    }
}

/// The 1-based line of the first occurrence of `needle` in `text`.
pub fn line_of(text: &str, needle: &str) -> u64 {
    let offset = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not found"));
    text[..offset].matches('\n').count() as u64 + 1
}

/// Asserts the report passes, showing the findings when it does not.
pub fn assert_pass(report: &Report) {
    assert_eq!(
        report.overall.result,
        OverallResult::Pass,
        "expected pass, got findings:\n{}",
        describe(report)
    );
    assert!(report.findings.is_empty());
}

/// The findings of one validator.
pub fn findings_of<'a>(report: &'a Report, validator: &str) -> Vec<&'a Finding> {
    report
        .findings
        .iter()
        .filter(|finding| finding.validator.as_deref() == Some(validator))
        .collect()
}

/// The one finding of `validator` at `path`; fails with the whole report otherwise.
pub fn expect_finding<'a>(report: &'a Report, validator: &str, path: &str) -> &'a Finding {
    assert_eq!(
        report.overall.result,
        OverallResult::IssuesFound,
        "{}",
        describe(report)
    );
    findings_of(report, validator)
        .into_iter()
        .find(|finding| finding.location.as_ref().map(|l| l.path.as_str()) == Some(path))
        .unwrap_or_else(|| {
            panic!(
                "no {validator} finding at {path}; the report has:\n{}",
                describe(report)
            )
        })
}

/// One line per finding, for failure messages.
pub fn describe(report: &Report) -> String {
    report
        .findings
        .iter()
        .map(|finding| {
            format!(
                "  [{}] {} @ {:?} req={:?} obl={:?}",
                finding.validator.as_deref().unwrap_or("-"),
                finding.title,
                finding.location,
                finding.requirement_id,
                finding.obligation_id
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

// --- rows: the golden edited, the gate run, its verdict and findings checked (`tests.rs`) -------

/// One change a row makes: to the golden's HEAD before it is built (committed on the feature
/// branch), or to the built repository's work tree (uncommitted).
pub enum Edit {
    Remove(String),
    Set(String, String),
    /// The first `from` replaced with `to` ([`Golden::replace`]: the file must hold it).
    Replace(String, String, String),
    Json(String, fn(&mut Value)),
    WorktreeWrite(String, String),
    /// Every `from` replaced with `to` in the work tree's file (which must hold it).
    WorktreeReplace(String, String, String),
}

pub fn remove(path: impl Into<String>) -> Edit {
    Edit::Remove(path.into())
}

pub fn set(path: impl Into<String>, text: impl Into<String>) -> Edit {
    Edit::Set(path.into(), text.into())
}

pub fn replace(path: impl Into<String>, from: &str, to: &str) -> Edit {
    Edit::Replace(path.into(), from.into(), to.into())
}

pub fn edit_json(path: impl Into<String>, edit: fn(&mut Value)) -> Edit {
    Edit::Json(path.into(), edit)
}

pub fn worktree_write(path: impl Into<String>, text: impl Into<String>) -> Edit {
    Edit::WorktreeWrite(path.into(), text.into())
}

pub fn worktree_replace(path: impl Into<String>, from: &str, to: &str) -> Edit {
    Edit::WorktreeReplace(path.into(), from.into(), to.into())
}

/// What a row expects of the gate's report.
pub enum Expect {
    /// The gate passes, with no finding.
    Pass,
    /// `overall.result` is issues-found, whatever the findings.
    IssuesFound,
    Finding(FindingAt),
    /// Some finding of the check names the obligation (wherever it is).
    AnyFor {
        check: &'static str,
        obligation: &'static str,
    },
    /// The built repository's file holds the text: a premise of the row.
    Holds(String, &'static str),
}

/// The finding of `check` at `at`, the first there ([`expect_finding`]: the report is
/// issues-found), with every property given.
#[derive(Default)]
pub struct FindingAt {
    check: &'static str,
    at: String,
    line: Option<Line>,
    title: Vec<&'static str>,
    title_ends: Option<&'static str>,
    description: Vec<&'static str>,
    obligation: Option<&'static str>,
    requirement: Option<&'static str>,
    class: Option<&'static str>,
}

/// A finding's line: a number, or the line of a text's first occurrence in the file.
pub enum Line {
    Is(u64),
    Of(&'static str),
}

pub fn finding(check: &'static str, at: impl Into<String>) -> FindingAt {
    FindingAt {
        check,
        at: at.into(),
        ..FindingAt::default()
    }
}

pub fn any_for(check: &'static str, obligation: &'static str) -> Expect {
    Expect::AnyFor { check, obligation }
}

pub fn holds(path: impl Into<String>, text: &'static str) -> Expect {
    Expect::Holds(path.into(), text)
}

impl FindingAt {
    pub fn line(mut self, line: u64) -> FindingAt {
        self.line = Some(Line::Is(line));
        self
    }

    /// At the line where `needle` first occurs in the file.
    pub fn line_of(mut self, needle: &'static str) -> FindingAt {
        self.line = Some(Line::Of(needle));
        self
    }

    /// The title holds `fragment` (each call adds one).
    pub fn title(mut self, fragment: &'static str) -> FindingAt {
        self.title.push(fragment);
        self
    }

    pub fn title_ends(mut self, end: &'static str) -> FindingAt {
        self.title_ends = Some(end);
        self
    }

    /// The description holds `fragment` (each call adds one).
    pub fn description(mut self, fragment: &'static str) -> FindingAt {
        self.description.push(fragment);
        self
    }

    pub fn obligation(mut self, id: &'static str) -> FindingAt {
        self.obligation = Some(id);
        self
    }

    pub fn requirement(mut self, id: &'static str) -> FindingAt {
        self.requirement = Some(id);
        self
    }

    pub fn class(mut self, class: &'static str) -> FindingAt {
        self.class = Some(class);
        self
    }

    fn assert(&self, repo: &TestRepo, report: &Report) {
        let found = expect_finding(report, self.check, &self.at);
        let line = self.line.as_ref().map(|line| match line {
            Line::Is(n) => *n,
            Line::Of(needle) => line_of(&repo.read(&self.at), needle),
        });
        if line.is_some() {
            assert_eq!(found.location.as_ref().unwrap().line, line);
        }
        for fragment in &self.title {
            assert!(found.title.contains(fragment), "{}", found.title);
        }
        if let Some(end) = self.title_ends {
            assert!(found.title.ends_with(end), "{}", found.title);
        }
        for fragment in &self.description {
            assert!(
                found.description.contains(fragment),
                "{}",
                found.description
            );
        }
        for (expected, actual) in [
            (self.obligation, &found.obligation_id),
            (self.requirement, &found.requirement_id),
            (self.class, &found.class),
        ] {
            if expected.is_some() {
                assert_eq!(actual.as_deref(), expected, "{}", describe(report));
            }
        }
    }
}

impl From<FindingAt> for Expect {
    fn from(finding: FindingAt) -> Expect {
        Expect::Finding(finding)
    }
}

/// A row: the golden edited, built, its work tree edited, the gate run, each expectation checked.
pub fn check_row(edits: Vec<Edit>, expects: Vec<Expect>) {
    let mut golden = Golden::new();
    let mut later = Vec::new();
    for edit in edits {
        match edit {
            Edit::Remove(path) => {
                golden.remove(&path);
            }
            Edit::Set(path, text) => {
                golden.set(&path, &text);
            }
            Edit::Replace(path, from, to) => {
                golden.replace(&path, &from, &to);
            }
            Edit::Json(path, edit) => {
                golden.edit_json(&path, edit);
            }
            worktree => later.push(worktree),
        }
    }
    let repo = golden.build();
    for edit in later {
        match edit {
            Edit::WorktreeWrite(path, text) => repo.write(&path, &text),
            Edit::WorktreeReplace(path, from, to) => {
                let text = repo.read(&path);
                assert!(text.contains(&from), "{path} lacks {from:?}");
                repo.write(&path, &text.replace(&from, &to));
            }
            _ => unreachable!("edits of the golden are made before it is built"),
        }
    }
    let report = repo.gate();
    for expect in &expects {
        match expect {
            Expect::Pass => assert_pass(&report),
            Expect::IssuesFound => assert_eq!(report.overall.result, OverallResult::IssuesFound),
            Expect::Finding(finding) => finding.assert(&repo, &report),
            Expect::AnyFor { check, obligation } => assert!(
                findings_of(&report, check)
                    .iter()
                    .any(|f| f.obligation_id.as_deref() == Some(obligation)),
                "no {check} finding names {obligation}:\n{}",
                describe(&report)
            ),
            Expect::Holds(path, text) => {
                let found = repo.read(path);
                assert!(found.contains(text), "{path} lacks {text:?}:\n{found}");
            }
        }
    }
}
