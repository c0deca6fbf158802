//! Reading a pipeline's report: JSON syntax, the report v1 JSON Schema, then the verify pipeline's
//! consistency rules. Anything that fails is an error outcome, never a verdict.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::{OverallResult, Report, Status};

/// Why a report cannot be scored. Its text is the reason a trial's error records.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("the report is empty")]
    Empty,
    #[error("the report is not valid JSON (line {line}, column {column}): {source}")]
    Json {
        line: usize,
        column: usize,
        source: serde_json::Error,
    },
    /// A key given twice is kept once by a parser (the last wins): the report is malformed.
    #[error(
        "the report gives the key `{key}` twice in one object (line {line}): it says two things at once"
    )]
    DuplicateKey { key: String, line: u64 },
    /// The schema's first problems, each with where it is.
    #[error("the report does not match the report v1 schema: {}", .0.join("; "))]
    Schema(Vec<String>),
    #[error("the report does not match the report v1 types: {0}")]
    Types(serde_json::Error),
    #[error("schemaVersion {0} is not 1")]
    SchemaVersion(u32),
    #[error("overall.result `{result}` contradicts status `{status}`")]
    Contradiction { result: String, status: String },
    #[error("status is error but `error` is null")]
    ErrorWithoutError,
    #[error("finding `{title}` has severity {severity}, outside 1-10")]
    SeverityOutOfRange { title: String, severity: u8 },
    #[error("overall.result is pass, yet finding `{title}` has critical severity {severity}")]
    CriticalInPass { title: String, severity: u8 },
    #[error("overall.result is issues-found, yet the report has no findings")]
    IssuesFoundWithoutFindings,
}

fn validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        jsonschema::validator_for(&crate::schema::report_schema())
            .expect("the generated report v1 schema is a valid JSON Schema")
    })
}

/// Parses and checks report bytes. The error says why the report cannot be scored.
pub fn parse(bytes: &[u8]) -> Result<(Report, serde_json::Value), ReportError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ReportError::Empty);
    }
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|source| ReportError::Json {
            line: source.line(),
            column: source.column(),
            source,
        })?;
    // Valid JSON is UTF-8. A key given twice is kept once by the parser (the last wins: two
    // `overall` results would be scored as the second): the report is malformed, never a verdict.
    let text = std::str::from_utf8(bytes).unwrap_or_default();
    if let Some((key, line)) = crate::json::duplicate_keys(text).into_iter().next() {
        return Err(ReportError::DuplicateKey { key, line });
    }
    check_value(value)
}

/// Checks an already-parsed report value against the schema and the consistency rules.
pub fn check_value(value: serde_json::Value) -> Result<(Report, serde_json::Value), ReportError> {
    // `is_valid` stops at the first error and builds none; the errors are collected only for a
    // report that has some.
    if !validator().is_valid(&value) {
        let problems: Vec<String> = validator()
            .iter_errors(&value)
            .take(5)
            .map(|e| format!("{} at `{}`", e, e.instance_path()))
            .collect();
        return Err(ReportError::Schema(problems));
    }
    let report = Report::deserialize(&value).map_err(ReportError::Types)?;
    consistency(&report)?;
    Ok((report, value))
}

/// A serialized enum's name (`issues-found`), `?` where it has none.
fn name(value: impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .unwrap_or_default()
        .as_str()
        .unwrap_or("?")
        .to_owned()
}

/// What a schema cannot say about a report: `status` and `overall.result` agree, issues-found
/// carries at least one finding (the verify pipeline's rules), and a pass carries no critical
/// finding. The verify pipeline makes any finding `issues-found`; gatebench reads other
/// verifiers' reports more leniently (a pass with minor findings is still a pass) and refuses
/// only the contradiction.
pub fn consistency(report: &Report) -> Result<(), ReportError> {
    if report.schema_version != 1 {
        return Err(ReportError::SchemaVersion(report.schema_version));
    }
    let result = report.overall.result;
    match (report.status, result) {
        (Status::Error, OverallResult::Error)
        | (Status::Blocked, OverallResult::Blocked)
        | (Status::Ok, OverallResult::Pass | OverallResult::IssuesFound) => {}
        (status, result) => {
            return Err(ReportError::Contradiction {
                result: name(result),
                status: name(status),
            })
        }
    }
    if report.status == Status::Error && report.error.is_none() {
        return Err(ReportError::ErrorWithoutError);
    }
    if let Some(f) = report
        .findings
        .iter()
        .find(|f| !(1..=10).contains(&f.severity))
    {
        return Err(ReportError::SeverityOutOfRange {
            title: f.title.clone(),
            severity: f.severity,
        });
    }
    if result == OverallResult::Pass {
        if let Some(f) = report.findings.iter().find(|f| f.severity >= 9) {
            return Err(ReportError::CriticalInPass {
                title: f.title.clone(),
                severity: f.severity,
            });
        }
    }
    if result == OverallResult::IssuesFound
        && report.findings.is_empty()
        && report.issues.is_empty()
    {
        return Err(ReportError::IssuesFoundWithoutFindings);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse;

    /// A minimal valid report whose `overall` is `first`, then, when given, `second` as well.
    fn report(first: &str, second: Option<&str>) -> String {
        let again = second.map_or(String::new(), |r| {
            format!(", \"overall\": {{\"result\": \"{r}\"}}")
        });
        format!(
            r#"{{"schemaVersion": 1, "status": "ok", "error": null,
  "findings": [{{"title": "t", "severity": 7, "description": "d", "sources": []}}],
  "overall": {{"result": "{first}"}}{again},
  "scope": {{"depth": "light", "mode": "branch", "baseRef": "main", "mergeBase": null,
            "headSha": null, "includedFiles": [], "excludedFiles": [], "files": [], "excluded": []}},
  "knownFindings": null, "deferredToEpic": [],
  "triage": {{"skillsRun": [], "skillsSkipped": [], "skills_run": [], "skills_skipped": []}},
  "skillResults": [], "issues": [], "exerciserVerification": [],
  "customGates": {{"exerciser": [], "review": []}}}}"#
        )
    }

    /// `overall` given twice, the second a pass: a parser keeps the pass; the report is refused
    /// as malformed instead (was: scored PASS). Escaped spellings of the key count too.
    #[test]
    fn a_key_given_twice_makes_the_report_malformed() {
        let (single, _) = parse(report("pass", None).as_bytes()).expect("a valid report");
        assert_eq!(single.overall.result, crate::OverallResult::Pass);
        let twice = report("issues-found", Some("pass"));
        let e = parse(twice.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("`overall` twice") && e.contains("line 3"), "{e}");
        let escaped = twice.replacen(", \"overall\"", ", \"\\u006fverall\"", 1);
        let e = parse(escaped.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("twice"), "{e}");
    }
}
