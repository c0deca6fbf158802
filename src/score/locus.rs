//! Localization against the ground truth: whether a reported finding points at a fixture's locus
//! (a path, with overlapping lines when both give them, or a requirement, obligation or task id it
//! names), and the per-trial figures the verifier-neutral metrics are computed from. Everything
//! here reads only what any report v1 carries, never a key that only gatebench's gate writes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::corpus::model::fixture::LocusEntry;
use crate::corpus::taxonomy::Kind;
use crate::score::typing::KindMap;
use gatebench_report::Finding;

/// The severity from which a finding is FAIL-level: the high (7-8) and critical (9-10) severities of
/// the verify pipeline (docs/CONCEPTS.md#verify-severity). Lower ones are advice a gate may pass
/// with; precision and noise count only what blocks.
pub const FAIL_LEVEL: u8 = 7;

/// What one omission trial's report said about the planted ground truth.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GroundTruthScore {
    /// The verdict was the expected FAIL or BLOCKED.
    pub caught: bool,
    /// At least one finding points at the locus.
    pub localized: bool,
    /// At least one finding that points at the locus maps onto the fixture's kind.
    pub typed: bool,
    /// The kinds the pipeline's mapping gave the findings at the locus (what it called it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kinds_at_locus: Vec<Kind>,
    /// FAIL-level findings (severity >= 7) in the report.
    pub fail_findings: u32,
    /// Of those, the ones that point at the locus.
    pub fail_findings_at_locus: u32,
    /// Requirement ids of the locus, and how many of them some finding names.
    pub requirements_planted: u32,
    pub requirements_named: u32,
    /// Obligation ids of the locus, and how many of them some finding names.
    pub obligations_planted: u32,
    pub obligations_named: u32,
}

/// Whether `text` holds `id` as a whole word: not inside a longer id (`REQ-001` is not in
/// `REQ-001-B04`, `T2` is not in `T20`).
pub fn names_word(text: &str, id: &str) -> bool {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    text.match_indices(id).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + id.len()..].chars().next();
        !before.is_some_and(part) && !after.is_some_and(part)
    })
}

fn names_id(finding: &Finding, structured: Option<&str>, extra_key: &str, id: &str) -> bool {
    structured == Some(id)
        || finding.extra.get(extra_key).and_then(|v| v.as_str()) == Some(id)
        || names_word(&finding.title, id)
        || names_word(&finding.description, id)
}

/// Whether `finding` points at the locus entry `entry`.
pub fn points_at(finding: &Finding, entry: &LocusEntry) -> bool {
    if let Some(path) = &entry.path {
        let Some(location) = &finding.location else {
            return false;
        };
        return location.path == *path
            && match (entry.lines, location.line) {
                (Some([start, end]), Some(line)) => (start..=end).contains(&line),
                _ => true,
            };
    }
    if let Some(id) = &entry.requirement {
        return names_id(
            finding,
            finding.requirement_id.as_deref(),
            "requirementId",
            id,
        );
    }
    if let Some(id) = &entry.obligation {
        return names_id(
            finding,
            finding.obligation_id.as_deref(),
            "obligationId",
            id,
        );
    }
    if let Some(id) = &entry.task {
        return names_id(finding, None, "taskId", id);
    }
    false
}

/// Whether `finding` points at any entry of `locus`.
pub fn at_locus(finding: &Finding, locus: &[LocusEntry]) -> bool {
    locus.iter().any(|entry| points_at(finding, entry))
}

/// The FAIL-level findings of a report.
pub fn fail_level(findings: &[Finding]) -> impl Iterator<Item = &Finding> {
    findings.iter().filter(|f| f.severity >= FAIL_LEVEL)
}

/// Scores `findings` against a fixture's `kind` and `locus`.
pub fn score(
    findings: &[Finding],
    kind: Kind,
    locus: &[LocusEntry],
    kinds: &KindMap,
) -> GroundTruthScore {
    let at: Vec<&Finding> = findings.iter().filter(|f| at_locus(f, locus)).collect();
    let mut kinds_at_locus: Vec<Kind> = at.iter().filter_map(|f| kinds.kind_of(f)).collect();
    kinds_at_locus.sort();
    kinds_at_locus.dedup();
    let count = |ids: Vec<&String>, entry: fn(&LocusEntry) -> bool| -> (u32, u32) {
        let planted = ids.len() as u32;
        let named = locus
            .iter()
            .filter(|e| entry(e))
            .filter(|e| findings.iter().any(|f| points_at(f, e)))
            .count() as u32;
        (planted, named)
    };
    let (requirements_planted, requirements_named) = count(
        locus
            .iter()
            .filter_map(|e| e.requirement.as_ref())
            .collect(),
        |e| e.requirement.is_some(),
    );
    let (obligations_planted, obligations_named) = count(
        locus.iter().filter_map(|e| e.obligation.as_ref()).collect(),
        |e| e.obligation.is_some(),
    );
    GroundTruthScore {
        caught: false,
        localized: !at.is_empty(),
        typed: kinds_at_locus.contains(&kind),
        kinds_at_locus,
        fail_findings: fail_level(findings).count() as u32,
        fail_findings_at_locus: fail_level(findings).filter(|f| at_locus(f, locus)).count() as u32,
        requirements_planted,
        requirements_named,
        obligations_planted,
        obligations_named,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(value: serde_json::Value) -> Finding {
        let mut base = serde_json::json!({"title": "t", "severity": 9, "description": ""});
        base.as_object_mut()
            .unwrap()
            .extend(value.as_object().unwrap().clone());
        serde_json::from_value(base).unwrap()
    }

    fn path(p: &str, lines: Option<[u64; 2]>) -> LocusEntry {
        LocusEntry {
            path: Some(p.into()),
            lines,
            ..LocusEntry::default()
        }
    }

    #[test]
    fn a_path_locus_matches_the_same_path_and_an_overlapping_line_only() {
        let entry = path("src/store.py", Some([50, 61]));
        let at = |line: Option<u64>| {
            finding(serde_json::json!({"location": {"path": "src/store.py", "line": line}}))
        };
        assert!(points_at(&at(Some(50)), &entry));
        assert!(points_at(&at(Some(61)), &entry));
        assert!(!points_at(&at(Some(62)), &entry));
        // A finding on the file without a line points at it.
        assert!(points_at(&at(None), &entry));
        let elsewhere =
            finding(serde_json::json!({"location": {"path": "src/other.py", "line": 55}}));
        assert!(!points_at(&elsewhere, &entry));
        // A locus path without lines takes any line of the file.
        assert!(points_at(&at(Some(3)), &path("src/store.py", None)));
        assert!(!points_at(&finding(serde_json::json!({})), &entry));
    }

    #[test]
    fn an_id_locus_matches_a_structured_id_or_the_id_as_a_whole_word() {
        let obligation = LocusEntry {
            obligation: Some("REQ-001-B04".into()),
            ..LocusEntry::default()
        };
        let requirement = LocusEntry {
            requirement: Some("REQ-001".into()),
            ..LocusEntry::default()
        };
        let task = LocusEntry {
            task: Some("T2".into()),
            ..LocusEntry::default()
        };
        let structured = finding(serde_json::json!({"obligationId": "REQ-001-B04"}));
        assert!(points_at(&structured, &obligation));
        let in_title = finding(serde_json::json!({"title": "REQ-001-B04: rollback is a TODO"}));
        assert!(points_at(&in_title, &obligation));
        // REQ-001 is not named by a longer id that starts with it.
        assert!(!points_at(&in_title, &requirement));
        let in_text = finding(serde_json::json!({"description": "task T2 has no state (see T20)"}));
        assert!(points_at(&in_text, &task));
        let only_t20 = finding(serde_json::json!({"description": "see T20"}));
        assert!(!points_at(&only_t20, &task));
    }

    #[test]
    fn precision_counts_fail_level_findings_at_the_locus_and_recall_counts_named_ids() {
        let locus = vec![
            path("src/store.py", Some([50, 61])),
            LocusEntry {
                obligation: Some("REQ-001-B04".into()),
                ..LocusEntry::default()
            },
            LocusEntry {
                requirement: Some("REQ-002".into()),
                ..LocusEntry::default()
            },
        ];
        let findings = vec![
            finding(
                serde_json::json!({"location": {"path": "src/store.py", "line": 52}, "class": "correctness"}),
            ),
            finding(serde_json::json!({"title": "noise", "location": {"path": "README.md"}})),
            finding(serde_json::json!({"title": "advice on REQ-001-B04", "severity": 3})),
        ];
        let kinds = KindMap::new(&[crate::corpus::scenario::KindRule {
            kind: Kind::ObligationNotImplemented,
            class: Some("correctness".into()),
            validator: None,
            rule: None,
            title: None,
            description: None,
        }])
        .unwrap();
        let s = score(&findings, Kind::ObligationNotImplemented, &locus, &kinds);
        assert!(s.localized && s.typed);
        assert_eq!((s.fail_findings, s.fail_findings_at_locus), (2, 1));
        assert_eq!((s.obligations_planted, s.obligations_named), (1, 1));
        assert_eq!((s.requirements_planted, s.requirements_named), (1, 0));
        let untyped = score(&findings, Kind::EvidenceStale, &locus, &kinds);
        assert!(untyped.localized && !untyped.typed);
        let nowhere = score(&findings[1..2], Kind::EvidenceStale, &locus, &kinds);
        assert!(!nowhere.localized);
    }
}
