//! The delivery-documents gate (docs/CONCEPTS.md#loop-delivery-documents): the changelist, the
//! tech-ref and the review report exist under `docs/delivery/` for one requirement id, and the
//! changelist names every file of `git diff BASE...HEAD` (a file it misses is a finding naming that
//! file).

use std::sync::OnceLock;

use regex::Regex;

use crate::check::rules::*;
use crate::finding::GateFinding;
use crate::repo::RepoView;
use gatebench_gittree::in_loop_state;

/// The folder of the delivery documents.
pub const DELIVERY_DIR: &str = "docs/delivery";

/// The three formal delivery documents, by their file name suffix.
pub const DOCUMENTS: [&str; 3] = ["changelist", "tech-ref", "review-report"];

/// What the delivery-documents gate found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DeliveryOutcome {
    pub findings: Vec<GateFinding>,
    /// One line for the report's notes.
    pub notes: String,
}

/// The repository path of one delivery document.
pub fn document_path(requirement_id: &str, kind: &str) -> String {
    format!("{DELIVERY_DIR}/{requirement_id}-{kind}.md")
}

fn document_name() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"^docs/delivery/(.+)-(changelist|tech-ref|review-report)\.md$")
            .expect("valid regex")
    })
}

fn id_shape() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"^([A-Za-z]+)-\d+$").expect("valid regex"))
}

/// Whether `text` names `path` as a whole token (not as part of a longer path).
pub fn names_path(text: &str, path: &str) -> bool {
    let boundary =
        |c: Option<char>| c.is_none_or(|c| c.is_whitespace() || "`'\"()[]|,;:*<>".contains(c));
    text.match_indices(path).any(|(start, _)| {
        let mut after = text[start + path.len()..].chars();
        let next = after.next();
        // A sentence may end right after the path: `... wordcount/top.py.`
        let ends_sentence = next == Some('.') && boundary(after.next());
        boundary(text[..start].chars().next_back()) && (boundary(next) || ends_sentence)
    })
}

/// Runs the delivery-documents gate for `requirement_id`; `base_ref` only names the diff in
/// messages.
/// The minimum content of a delivery document (docs/CONCEPTS.md#loop-delivery-documents), as topics
/// each recognised by any of its lower-case keywords (English or Chinese). The changelist's minimum
/// (reconciled with the diff) is checked against the diff itself.
pub fn minimum_content(kind: &str) -> &'static [(&'static str, &'static [&'static str])] {
    match kind {
        "tech-ref" => &[
            ("the interface", &["interface", "接口"]),
            ("the core function", &["core function", "核心功能"]),
            ("the data flow", &["data flow", "数据流"]),
            ("the configuration", &["configuration", "配置"]),
            ("notes for testers", &["notes", "注意事项"]),
        ],
        "review-report" => &[
            ("the V4 unified audit conclusion", &["v4"]),
            (
                "the comment and deleted-code check",
                &["deleted-code", "deleted code", "删除代码"],
            ),
            ("the Git conventions check", &["git"]),
            ("a score", &["score", "评分"]),
            ("the V1-V5 summary", &["v1-v5", "v1–v5", "v1 "]),
            ("the Critical closure status", &["critical"]),
            (
                "the delivery verdict",
                &["deliverable", "delivery verdict", "交付判定"],
            ),
        ],
        _ => &[],
    }
}

pub fn check(repo: &RepoView, requirement_id: &str, base_ref: &str) -> DeliveryOutcome {
    let mut findings = Vec::new();
    let mut texts = Vec::new();
    for kind in DOCUMENTS {
        let path = document_path(requirement_id, kind);
        let text = repo
            .read(&path)
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
        match text {
            Some(text) if !text.trim().is_empty() => texts.push((kind, path, text)),
            Some(_) => findings.push(
                GateFinding::new(
                    delivery_documents::EMPTY,
                    format!("the delivery document {path} is empty"),
                    format!(
                        "{path} exists but says nothing. The verification loop requires the {kind} before \
                             the work is deliverable."
                    ),
                )
                .at(&path, None)
                .requirement(requirement_id),
            ),
            None => findings.push(
                GateFinding::new(
                    delivery_documents::MISSING,
                    format!("the delivery document {path} is missing"),
                    format!(
                        "The verification loop requires three delivery documents with one requirement id \
                             (changelist, tech-ref, review-report); {path} does not exist, so \
                             the verdict cannot be treated as deliverable."
                    ),
                )
                .at(&path, None)
                .requirement(requirement_id),
            ),
        }
    }
    findings.extend(other_requirement_documents(repo, requirement_id));
    findings.extend(requirement_named(&texts, requirement_id));
    for (kind, path, text) in &texts {
        for (topic, keywords) in minimum_content(kind) {
            let lower = text.to_lowercase();
            if !keywords.iter().any(|keyword| lower.contains(keyword)) {
                findings.push(
                    GateFinding::new(
                        delivery_documents::TOPIC,
                        format!("{path} does not cover {topic}"),
                        format!(
                            "The verification loop's minimum for the {kind} includes {topic}, and {path} \
                                 never mentions it (looked for: {}). Add it.",
                            keywords.join(", ")
                        ),
                    )
                    .at(path, Some(1))
                    .requirement(requirement_id),
                );
            }
        }
    }
    let changelist = document_path(requirement_id, "changelist");
    let own: Vec<String> = DOCUMENTS
        .iter()
        .map(|kind| document_path(requirement_id, kind))
        .collect();
    let mut missing = 0;
    let mut named = 0;
    if let Some((_, _, text)) = texts.iter().find(|(kind, _, _)| *kind == "changelist") {
        for change in &repo.committed_changes {
            if own.contains(&change.path) {
                continue;
            }
            if names_path(text, &change.path) {
                named += 1;
                continue;
            }
            missing += 1;
            findings.push(
                GateFinding::new(
                    delivery_documents::CHANGELIST,
                    format!("the changelist does not name {}", change.path),
                    format!(
                        "`git diff {base_ref}...HEAD` shows {} {}, but {changelist} does not \
                             name it: the changelist is not reconciled with the diff (the verification loop).",
                        change.path,
                        change.status.as_str()
                    ),
                )
                .at(&changelist, None)
                .requirement(requirement_id),
            );
        }
    }
    let notes = format!(
        "{} of 3 documents present; changelist names {named} changed file(s), misses {missing}; \
         {} finding(s)",
        texts.len(),
        findings.len()
    );
    DeliveryOutcome { findings, notes }
}

/// Delivery documents of another requirement beside these: two ids where there must be one.
fn other_requirement_documents(repo: &RepoView, requirement_id: &str) -> Vec<GateFinding> {
    let mut findings = Vec::new();
    for path in repo.files() {
        if in_loop_state(path) {
            continue;
        }
        if let Some(caps) = document_name().captures(path) {
            if &caps[1] != requirement_id {
                findings.push(
                    GateFinding::new(
                        delivery_documents::OTHER_REQUIREMENT,
                        format!(
                            "{path} is a delivery document of `{}`, not `{requirement_id}`",
                            &caps[1]
                        ),
                        format!(
                            "The delivery documents must carry one requirement id (the loop's \
                                 is `{requirement_id}`); {path} names `{}`.",
                            &caps[1]
                        ),
                    )
                    .at(path, None)
                    .requirement(requirement_id),
                );
            }
        }
    }
    findings
}

/// Each document names `requirement_id` and no other id of its shape.
fn requirement_named(texts: &[(&str, String, String)], requirement_id: &str) -> Vec<GateFinding> {
    let mut findings = Vec::new();
    let other_id = id_shape()
        .captures(requirement_id)
        .and_then(|caps| Regex::new(&format!(r"\b{}-\d+\b", regex::escape(&caps[1]))).ok());
    for (_, path, text) in texts {
        if !text.contains(requirement_id) {
            findings.push(
                GateFinding::new(
                    delivery_documents::UNNAMED,
                    format!("{path} does not name {requirement_id}"),
                    format!(
                        "{path} never mentions the requirement id `{requirement_id}`: the \
                             delivery documents must name the requirement they deliver."
                    ),
                )
                .at(path, Some(1))
                .requirement(requirement_id),
            );
        }
        if let Some(pattern) = &other_id {
            for (index, line) in text.lines().enumerate() {
                if let Some(other) = pattern
                    .find_iter(line)
                    .map(|m| m.as_str())
                    .find(|id| *id != requirement_id)
                {
                    findings.push(
                        GateFinding::new(
                            delivery_documents::OTHER_REQUIREMENT,
                            format!("{path} names another requirement, {other}"),
                            format!(
                                "{path} line {}: `{other}` is not `{requirement_id}`; the \
                                     delivery documents must carry one requirement id.",
                                index + 1
                            ),
                        )
                        .at(path, Some(index as u64 + 1))
                        .requirement(requirement_id),
                    );
                    break;
                }
            }
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_named_only_as_a_whole_token() {
        let text = "| `wordcount/top.py` | added |\n- scripts/test.sh: new\nsee wordcount/cli.py.bak\nand README.md.\n";
        assert!(names_path(text, "wordcount/top.py"));
        assert!(names_path(text, "README.md"));
        assert!(names_path(text, "scripts/test.sh"));
        assert!(!names_path(text, "wordcount/cli.py"));
        assert!(!names_path(text, "top.py"));
    }
}
