//! Ledger-structure operators: obligations dropped, unassigned, without test plans, with a flipped
//! status or a duplicated id or key; detail categories removed or left open.

use crate::corpus::taxonomy::Kind;
use crate::mutate::jsontext;
use crate::mutate::ledger::Ledger;
use crate::mutate::operator::{site_id, Family, Operator, Planted, Site};
use crate::mutate::operators::common::{edit_json, object_lines, object_of};

pub fn operators() -> Vec<Operator> {
    vec![
        Operator {
            name: "drop-obligation",
            family: Family::Ledger,
            kind: Kind::ObligationMissing,
            finds: "every obligation of requirements.json",
            does: "removes the obligation's object",
            sites: drop_obligation,
        },
        Operator {
            name: "empty-obligation-tasks",
            family: Family::Ledger,
            kind: Kind::ObligationWithoutTask,
            finds: "every obligation",
            does: "empties its task_ids",
            sites: empty_tasks,
        },
        Operator {
            name: "remove-detail-category",
            family: Family::Ledger,
            kind: Kind::DetailUnconcluded,
            finds: "every detail category of every requirement",
            does: "removes the category from details",
            sites: remove_category,
        },
        Operator {
            name: "category-requires-clarification",
            family: Family::Ledger,
            kind: Kind::ClarificationOpen,
            finds: "every concluded detail category of every requirement",
            does: "turns its conclusion into requires_clarification with a question",
            sites: clarification,
        },
        Operator {
            name: "duplicate-requirement-id",
            family: Family::Ledger,
            kind: Kind::LedgerIdDuplicate,
            finds: "every requirement after the first",
            does: "gives it the first requirement's id",
            sites: dup_requirement,
        },
        Operator {
            name: "duplicate-obligation-id",
            family: Family::Ledger,
            kind: Kind::LedgerIdDuplicate,
            finds: "every obligation after the first of its requirement",
            does: "gives it the previous obligation's id",
            sites: dup_obligation,
        },
        Operator {
            name: "duplicate-json-key",
            family: Family::Ledger,
            kind: Kind::LedgerMalformed,
            finds: "every obligation's status member",
            does: "writes a second `status` key before it",
            sites: dup_key,
        },
        Operator {
            name: "flip-obligation-status",
            family: Family::Ledger,
            kind: Kind::EvidenceMissing,
            finds: "every passing obligation",
            does: "sets its status to failing",
            sites: flip_status,
        },
        Operator {
            name: "drop-test-plan",
            family: Family::Ledger,
            kind: Kind::TestPlanMissing,
            finds: "every obligation with a test_plan",
            does: "removes the test_plan",
            sites: drop_test_plan,
        },
        Operator {
            name: "empty-test-plan-expected",
            family: Family::Ledger,
            kind: Kind::TestPlanMissing,
            finds: "every test plan with expected results",
            does: "empties its expected list",
            sites: empty_expected,
        },
    ]
}

fn per_obligation(
    l: &Ledger,
    what: &str,
    edit: impl Fn(&[String], &str) -> Option<Vec<String>>,
    keep_lines: bool,
) -> Vec<Site> {
    let path = l.requirements_path();
    l.obligations()
        .into_iter()
        .map(|o| {
            let site = site_id(&[&o.id]);
            match edit_json(l, &path, |lines| edit(lines, &o.id)) {
                Ok(text) => {
                    let mut p =
                        Planted::head(format!("{what} {} (requirement {})", o.id, o.requirement));
                    p = match object_lines(&text, &o.id).filter(|_| keep_lines) {
                        Some(lines) => p.at_lines(&path, lines),
                        None => p.at_path(&path),
                    };
                    Site::ok(
                        site,
                        p.write(&path, text)
                            .at_obligation(&o.id)
                            .at_requirement(&o.requirement),
                    )
                }
                Err(e) => Site::unviable(site, e),
            }
        })
        .collect()
}

fn drop_obligation(l: &Ledger) -> Vec<Site> {
    per_obligation(
        l,
        "the requirements ledger lost obligation",
        |lines, id| Some(jsontext::remove(lines, object_of(lines, id)?)),
        false,
    )
}

fn member_of(lines: &[String], id: &str, key: &str) -> Option<(usize, usize)> {
    jsontext::member(lines, object_of(lines, id)?, key)
}

fn empty_tasks(l: &Ledger) -> Vec<Site> {
    per_obligation(
        l,
        "no task is assigned to obligation",
        |lines, id| {
            let span = member_of(lines, id, "task_ids")?;
            Some(jsontext::replace(lines, span, &["\"task_ids\": []".into()]))
        },
        true,
    )
}

fn flip_status(l: &Ledger) -> Vec<Site> {
    per_obligation(
        l,
        "the status of obligation",
        |lines, id| {
            let span = member_of(lines, id, "status")?;
            lines[span.0].contains("\"passing\"").then_some(())?;
            Some(jsontext::replace(
                lines,
                span,
                &["\"status\": \"failing\"".into()],
            ))
        },
        true,
    )
}

fn dup_key(l: &Ledger) -> Vec<Site> {
    per_obligation(
        l,
        "a second `status` key was written into obligation",
        |lines, id| {
            let span = member_of(lines, id, "status")?;
            Some(jsontext::insert(
                lines,
                span.0,
                &["\"status\": \"failing\",".into()],
            ))
        },
        true,
    )
}

fn drop_test_plan(l: &Ledger) -> Vec<Site> {
    per_obligation(
        l,
        "the test plan was removed from obligation",
        |lines, id| Some(jsontext::remove(lines, member_of(lines, id, "test_plan")?)),
        true,
    )
}

fn empty_expected(l: &Ledger) -> Vec<Site> {
    per_obligation(
        l,
        "the test plan states no expected result for obligation",
        |lines, id| {
            let plan = member_of(lines, id, "test_plan")?;
            let span = jsontext::member(lines, plan, "expected")?;
            (span.1 > span.0 + 1).then_some(())?;
            Some(jsontext::replace(lines, span, &["\"expected\": []".into()]))
        },
        true,
    )
}

/// The `details` member of requirement `req`.
fn details_of(lines: &[String], req: &str) -> Option<(usize, usize)> {
    jsontext::member(lines, object_of(lines, req)?, "details")
}

fn per_category(
    l: &Ledger,
    what: &str,
    edit: impl Fn(&[String], (usize, usize), &str) -> Option<Vec<String>>,
) -> Vec<Site> {
    let path = l.requirements_path();
    let mut out = Vec::new();
    for req in l.requirement_ids() {
        for cat in l.detail_categories(&req) {
            let site = site_id(&[&req, &cat]);
            let edited = edit_json(l, &path, |lines| {
                let details = details_of(lines, &req)?;
                let span = jsontext::member(lines, details, &cat)?;
                edit(lines, span, &cat)
            });
            out.push(match edited {
                Ok(text) => {
                    let lines = jsontext::lines(&text);
                    let mut p = Planted::head(format!("{what} `{cat}` of requirement {req}"));
                    p = match details_of(&lines, &req) {
                        Some(span) => p.at_lines(&path, jsontext::one_based(span)),
                        None => p.at_path(&path),
                    };
                    Site::ok(site, p.write(&path, text).at_requirement(&req))
                }
                Err(e) => Site::unviable(site, e),
            });
        }
    }
    out
}

fn remove_category(l: &Ledger) -> Vec<Site> {
    per_category(
        l,
        "the requirement no longer concludes the detail category",
        |lines, span, _| Some(jsontext::remove(lines, span)),
    )
}

fn clarification(l: &Ledger) -> Vec<Site> {
    per_category(
        l,
        "an open question was left on the detail category",
        |lines, span, cat| {
            let body = lines[span.0..=span.1].join("\n");
            (!body.contains("requires_clarification")).then_some(())?;
            Some(jsontext::replace(
                lines,
                span,
                &[
                    format!("\"{cat}\": {{"),
                    "  \"conclusion\": \"requires_clarification\",".into(),
                    "  \"question\": \"which behaviour is expected here?\"".into(),
                    "}".into(),
                ],
            ))
        },
    )
}

fn dup_requirement(l: &Ledger) -> Vec<Site> {
    let path = l.requirements_path();
    let ids = l.requirement_ids();
    let Some(first) = ids.first() else {
        return Vec::new();
    };
    ids.iter()
        .skip(1)
        .map(|req| {
            let site = site_id(&[req]);
            let edited = edit_json(l, &path, |lines| {
                let at = jsontext::find_member(lines, "id", req)?;
                Some(jsontext::replace(
                    lines,
                    (at, at),
                    &[format!("\"id\": \"{first}\"")],
                ))
            });
            match edited {
                Ok(text) => {
                    let at = jsontext::find_member(&jsontext::lines(&text), "id", first);
                    let lines = jsontext::lines(&text);
                    let second = at.and_then(|a| {
                        jsontext::find(&lines, a + 1, lines.len(), &format!("\"id\": \"{first}\""))
                    });
                    let mut p = Planted::head(format!(
                        "requirement {req} was given the id {first}, which another requirement has"
                    ));
                    p = match second {
                        Some(s) => p.at_lines(&path, [s as u64 + 1, s as u64 + 1]),
                        None => p.at_path(&path),
                    };
                    Site::ok(
                        site,
                        p.write(&path, text)
                            .at_requirement(first)
                            .at_requirement(req),
                    )
                }
                Err(e) => Site::unviable(site, e),
            }
        })
        .collect()
}

fn dup_obligation(l: &Ledger) -> Vec<Site> {
    let path = l.requirements_path();
    let obligations = l.obligations();
    let mut out = Vec::new();
    for pair in obligations.windows(2) {
        let (prev, this) = (&pair[0], &pair[1]);
        if prev.requirement != this.requirement {
            continue;
        }
        let site = site_id(&[&this.id]);
        let edited = edit_json(l, &path, |lines| {
            let at = jsontext::find_member(lines, "id", &this.id)?;
            Some(jsontext::replace(
                lines,
                (at, at),
                &[format!("\"id\": \"{}\"", prev.id)],
            ))
        });
        out.push(match edited {
            Ok(text) => {
                let lines = jsontext::lines(&text);
                let first = jsontext::find_member(&lines, "id", &prev.id);
                let second = first.and_then(|a| {
                    jsontext::find(
                        &lines,
                        a + 1,
                        lines.len(),
                        &format!("\"id\": \"{}\"", prev.id),
                    )
                });
                let mut p = Planted::head(format!(
                    "obligation {} was given the id {}, which the obligation before it has",
                    this.id, prev.id
                ));
                p = match second {
                    Some(s) => p.at_lines(&path, [s as u64 + 1, s as u64 + 1]),
                    None => p.at_path(&path),
                };
                Site::ok(
                    site,
                    p.write(&path, text)
                        .at_obligation(&prev.id)
                        .at_obligation(&this.id)
                        .at_requirement(&this.requirement),
                )
            }
            Err(e) => Site::unviable(site, e),
        });
    }
    out
}
