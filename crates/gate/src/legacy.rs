//! The legacy "document-style" checker of the Loom plan
//! (docs/CONCEPTS.md#loom-document-style-checker): artifacts exist, no placeholder text, a report
//! that says PASS, exit codes 0 and log hashes that match. Nothing else. It is the weak baseline the
//! reference gate is measured against, and it honestly checks what it claims.

use std::path::Path;

use regex::Regex;
use serde_json::Value;

use crate::build_report::{self, SkillGroup};
use crate::check::Class;
use crate::context::hash_matches;
use crate::finding::GateFinding;
use crate::repo::{is_plain_relative, RepoView};
use crate::GateOptions;
use gatebench_gittree::LEDGER_DIR;
use gatebench_report::Report;

const ARTIFACTS: &str = "legacy-artifacts-exist";
const PLACEHOLDERS: &str = "legacy-no-placeholders";
const REPORT_PASS: &str = "legacy-report-pass";
const EXIT_CODES: &str = "legacy-test-exit-codes";
const LOG_HASHES: &str = "legacy-log-hashes";

fn groups() -> Vec<SkillGroup> {
    vec![SkillGroup {
        skill: "legacy-document-checks",
        reason: "the document-style checks of the Loom plan always run",
        validators: vec![ARTIFACTS, PLACEHOLDERS, REPORT_PASS, EXIT_CODES, LOG_HASHES],
    }]
}

fn item(
    validator: &'static str,
    class: Class,
    title: String,
    description: String,
    path: &str,
    line: Option<u64>,
) -> GateFinding {
    GateFinding::legacy(validator, class, title, description).at(path, line)
}

/// Runs the legacy checker on the repository whose work tree is `repo_dir`.
pub fn run_legacy(repo_dir: &Path, options: &GateOptions) -> Report {
    let groups = groups();
    let repo = match RepoView::open_with(repo_dir, &options.base_ref, options.pinned.as_ref()) {
        Ok(repo) => repo,
        Err(error) => return build_report::errored(&error, &options.base_ref, &groups),
    };
    let scope = build_report::scope_of(&repo, &options.base_ref);
    let features: Vec<String> = repo
        .list_dir(LEDGER_DIR)
        .into_iter()
        .filter(|name| repo.is_dir(&format!("{LEDGER_DIR}/{name}")))
        .collect();
    if features.is_empty() {
        let blocked = GateFinding::legacy(
            ARTIFACTS,
            Class::PlanCompleteness,
            "no feature folder to check",
            "The repository has no specs/<feature>/ folder: there are no artifacts to check.",
        );
        return build_report::blocked(
            vec![blocked],
            scope,
            &groups,
            "blocked: no specs/<feature>/",
        );
    }
    let mut items = Vec::new();
    for name in &features {
        items.extend(check_feature(&repo, &format!("{LEDGER_DIR}/{name}")));
    }
    build_report::judged(items, scope, &groups)
}

fn check_feature(repo: &RepoView, dir: &str) -> Vec<GateFinding> {
    let mut items = Vec::new();
    let mut documents = Vec::new();
    for artifact in ["spec.md", "plan.md", "requirements.json"] {
        let path = format!("{dir}/{artifact}");
        if repo.is_file(&path) {
            documents.push(path);
        } else {
            items.push(item(
                ARTIFACTS,
                Class::PlanCompleteness,
                format!("{artifact} is missing"),
                format!("{path} does not exist. Write it."),
                &path,
                None,
            ));
        }
    }
    let tasks: Vec<String> = repo
        .list_dir(&format!("{dir}/tasks"))
        .into_iter()
        .map(|name| format!("{dir}/tasks/{name}"))
        .filter(|path| repo.is_file(path))
        .collect();
    if tasks.is_empty() {
        let path = format!("{dir}/tasks");
        items.push(item(
            ARTIFACTS,
            Class::PlanCompleteness,
            "there are no tasks".to_owned(),
            format!("{path}/ is missing or empty. Write the tasks."),
            &path,
            None,
        ));
    }
    documents.extend(tasks.into_iter().filter(|path| path.ends_with(".md")));

    items.extend(placeholders(repo, &documents));

    let says_pass = ["verify-report.md", "test-report.md"].iter().any(|name| {
        repo.read(&format!("{dir}/{name}"))
            .is_some_and(|bytes| String::from_utf8_lossy(&bytes).contains("PASS"))
    });
    if !says_pass {
        let path = format!("{dir}/verify-report.md");
        items.push(item(
            REPORT_PASS,
            Class::TestFailure,
            "no report says PASS".to_owned(),
            format!(
                "Neither {path} nor {dir}/test-report.md exists and contains PASS. Verify and \
                 write the report."
            ),
            &path,
            None,
        ));
    }

    let receipts: Vec<String> = repo
        .list_dir(&format!("{dir}/receipts/tests"))
        .into_iter()
        .filter(|name| name.ends_with(".json"))
        .map(|name| format!("{dir}/receipts/tests/{name}"))
        .filter(|path| repo.is_file(path))
        .collect();
    if receipts.is_empty() {
        let path = format!("{dir}/receipts/tests");
        items.push(item(
            EXIT_CODES,
            Class::TestFailure,
            "there is no test evidence".to_owned(),
            format!("{path}/ holds no test receipt: no command was shown to pass. Run the tests and record a receipt."),
            &path,
            None,
        ));
    }
    for path in &receipts {
        items.extend(check_receipt(repo, dir, path));
    }
    items
}

/// A finding for each document that still holds placeholder text (TODO, TBD or `{{`), at its
/// first such line.
fn placeholders(repo: &RepoView, documents: &[String]) -> Vec<GateFinding> {
    let mut found = Vec::new();
    if let Ok(placeholder) = Regex::new(r"\bTODO\b|\bTBD\b|\{\{") {
        for path in documents {
            let Some(bytes) = repo.read(path) else {
                continue;
            };
            let text = String::from_utf8_lossy(&bytes);
            let hits: Vec<u64> = text
                .lines()
                .enumerate()
                .filter(|(_, line)| placeholder.is_match(line))
                .map(|(index, _)| index as u64 + 1)
                .collect();
            if let Some(first) = hits.first() {
                found.push(item(
                    PLACEHOLDERS,
                    Class::PlanCompleteness,
                    format!("{path} holds placeholder text"),
                    format!(
                        "{path} has TODO, TBD or `{{{{` on {} line(s), first on line {first}. \
                         Replace the placeholders with content.",
                        hits.len()
                    ),
                    path,
                    Some(*first),
                ));
            }
        }
    }
    found
}

fn check_receipt(repo: &RepoView, dir: &str, path: &str) -> Vec<GateFinding> {
    let mut items = Vec::new();
    let receipt: Option<Value> = repo
        .read(path)
        .and_then(|bytes| serde_json::from_slice(&bytes).ok());
    let Some(receipt) = receipt else {
        items.push(item(
            EXIT_CODES,
            Class::TestFailure,
            format!("{path} is not JSON"),
            format!("{path} does not parse as JSON, so its exit code and log cannot be checked."),
            path,
            None,
        ));
        return items;
    };
    if receipt.get("exit_code").and_then(Value::as_i64) != Some(0) {
        items.push(item(
            EXIT_CODES,
            Class::TestFailure,
            format!("{path} does not record exit code 0"),
            format!(
                "{path} records exit_code {}; the tests did not pass.",
                receipt
                    .get("exit_code")
                    .map_or("(none)".to_owned(), Value::to_string)
            ),
            path,
            None,
        ));
    }
    let log_file = receipt.get("log_file").and_then(Value::as_str);
    let log_sha = receipt.get("log_sha256").and_then(Value::as_str);
    let backed = match (log_file, log_sha) {
        (Some(log_file), Some(log_sha)) => {
            let relative = log_file.strip_prefix("./").unwrap_or(log_file);
            is_plain_relative(relative)
                && repo
                    .read(&format!("{dir}/{relative}"))
                    .is_some_and(|content| hash_matches(log_sha, &content))
        }
        _ => false,
    };
    if !backed {
        items.push(item(
            LOG_HASHES,
            Class::TestFailure,
            format!("{path} is not backed by its log"),
            format!(
                "{path}: the log {} is missing or its sha256 is not {}.",
                log_file.unwrap_or("(no log_file)"),
                log_sha.unwrap_or("(no log_sha256)")
            ),
            path,
            None,
        ));
    }
    items
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::testutil::{assert_pass, describe, expect_finding, feature, Golden};
    use gatebench_report::OverallResult;

    fn legacy(repo: &crate::testutil::TestRepo) -> Report {
        run_legacy(repo.path(), &GateOptions::default())
    }

    #[test]
    fn the_golden_passes_the_legacy_checker() {
        assert_pass(&legacy(&Golden::new().build()));
    }

    #[test]
    fn a_missing_artifact_fails_the_legacy_checker() {
        let repo = Golden::new().build();
        repo.delete(&feature("plan.md"));
        let report = legacy(&repo);
        expect_finding(&report, ARTIFACTS, &feature("plan.md"));
    }

    #[test]
    fn placeholder_text_fails_the_legacy_checker_at_its_line() {
        let mut golden = Golden::new();
        golden.set(&feature("spec.md"), "# Cancel\n\nTBD: who may cancel\n");
        let report = legacy(&golden.build());
        let finding = expect_finding(&report, PLACEHOLDERS, &feature("spec.md"));
        assert_eq!(finding.location.as_ref().and_then(|l| l.line), Some(3));
    }

    #[test]
    fn a_missing_pass_in_the_report_fails_the_legacy_checker() {
        let mut golden = Golden::new();
        golden.set(&feature("verify-report.md"), "# Verify\n\nResult: FAIL\n");
        let report = legacy(&golden.build());
        expect_finding(&report, REPORT_PASS, &feature("verify-report.md"));
    }

    #[test]
    fn a_failed_test_command_fails_the_legacy_checker() {
        let mut golden = Golden::new();
        golden.edit_json(&feature("receipts/tests/unit.json"), |receipt| {
            receipt["exit_code"] = json!(2);
        });
        let report = legacy(&golden.build());
        expect_finding(&report, EXIT_CODES, &feature("receipts/tests/unit.json"));
    }

    #[test]
    fn a_tampered_log_fails_the_legacy_checker() {
        let repo = Golden::new().build();
        repo.write(&feature("evidence/unit.log"), "edited\n");
        let report = legacy(&repo);
        expect_finding(&report, LOG_HASHES, &feature("receipts/tests/unit.json"));
    }

    #[test]
    fn the_legacy_checker_passes_stale_evidence_and_a_pending_task() {
        // The weakness the Loom plan (docs/CONCEPTS.md#loom-document-style-checker) describes:
        // documents and hashes look fine, so it passes.
        let mut golden = Golden::new();
        golden.edit_json(&feature("task-states/T2.state.json"), |state| {
            state["status"] = json!("pending");
        });
        let repo = golden.build();
        repo.write(
            "src/subscription/cancel.py",
            "def cancel(s, u):\n    return s\n",
        );
        let report = legacy(&repo);
        assert_eq!(
            report.overall.result,
            OverallResult::Pass,
            "{}",
            describe(&report)
        );
        assert_eq!(repo.gate().overall.result, OverallResult::IssuesFound);
    }
}
