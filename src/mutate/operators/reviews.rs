//! Review and handoff operators: a BLOCKER finding left open; a review or evaluation receipt whose
//! verdict fails, or that is missing; an implementation receipt missing.

use crate::corpus::taxonomy::Kind;
use crate::mutate::jsontext;
use crate::mutate::ledger::Ledger;
use crate::mutate::operator::{site_id, Family, Operator, Planted, Site};
use crate::mutate::operators::common::edit_json;

pub fn operators() -> Vec<Operator> {
    vec![
        Operator {
            name: "open-blocker-finding",
            family: Family::Reviews,
            kind: Kind::FindingOpen,
            finds: "every findings/*.json",
            does: "makes it an open BLOCKER",
            sites: open_finding,
        },
        Operator {
            name: "review-verdict-fail",
            family: Family::Reviews,
            kind: Kind::ReviewFailed,
            finds: "every review and evaluation receipt that passes",
            does: "sets its verdict to fail",
            sites: verdict_fail,
        },
        Operator {
            name: "delete-review-receipt",
            family: Family::Reviews,
            kind: Kind::ReviewMissing,
            finds: "every review and evaluation receipt",
            does: "deletes it",
            sites: delete_review,
        },
        Operator {
            name: "delete-implementation-receipt",
            family: Family::Reviews,
            kind: Kind::ImplementationReceiptMissing,
            finds: "every receipts/implementations/*.json",
            does: "deletes it",
            sites: delete_implementation,
        },
    ]
}

fn stem(path: &str) -> &str {
    path.rsplit('/')
        .next()
        .unwrap_or(path)
        .trim_end_matches(".json")
}

fn reviews(l: &Ledger) -> Vec<String> {
    let mut out = l.files_in("receipts/reviews");
    out.extend(l.files_in("receipts/evaluations"));
    out
}

fn with_task(p: Planted, v: Option<serde_json::Value>) -> Planted {
    match v.as_ref().and_then(|v| v["task_id"].as_str()) {
        Some(t) => p.at_task(t),
        None => p,
    }
}

fn open_finding(l: &Ledger) -> Vec<Site> {
    l.files_in("findings")
        .into_iter()
        .map(|path| {
            let site = site_id(&[stem(&path)]);
            let edited = edit_json(l, &path, |lines| {
                let s = jsontext::find(lines, 0, lines.len(), "\"status\":")?;
                let lines = jsontext::replace(lines, (s, s), &["\"status\": \"open\"".into()]);
                let v = jsontext::find(&lines, 0, lines.len(), "\"severity\":")?;
                Some(jsontext::replace(
                    &lines,
                    (v, v),
                    &["\"severity\": \"BLOCKER\"".into()],
                ))
            });
            match edited {
                Ok(text) => {
                    let v = l.json(&path).unwrap_or_default();
                    let mut p = Planted::head(format!("the finding {path} is an open BLOCKER"))
                        .write(&path, text)
                        .at_path(&path);
                    if let Some(o) = v["obligation_id"].as_str() {
                        p = p.at_obligation(o);
                    }
                    Site::ok(site, p)
                }
                Err(e) => Site::unviable(site, e),
            }
        })
        .collect()
}

fn verdict_fail(l: &Ledger) -> Vec<Site> {
    reviews(l)
        .into_iter()
        .map(|path| {
            let rel = path.rsplit('/').take(2).collect::<Vec<_>>();
            let site = site_id(&[rel.get(1).copied().unwrap_or_default(), stem(&path)]);
            let edited = edit_json(l, &path, |lines| {
                let at = jsontext::find_member(lines, "verdict", "pass")?;
                Some(jsontext::replace(
                    lines,
                    (at, at),
                    &["\"verdict\": \"fail\"".into()],
                ))
            });
            match edited {
                Ok(text) => Site::ok(
                    site,
                    with_task(
                        Planted::head(format!("{path} concludes fail"))
                            .write(&path, text)
                            .at_path(&path),
                        l.json(&path),
                    ),
                ),
                Err(e) => Site::unviable(site, e),
            }
        })
        .collect()
}

fn delete_review(l: &Ledger) -> Vec<Site> {
    reviews(l)
        .into_iter()
        .map(|path| {
            let rel = path.rsplit('/').take(2).collect::<Vec<_>>();
            let site = site_id(&[rel.get(1).copied().unwrap_or_default(), stem(&path)]);
            Site::ok(
                site,
                with_task(
                    Planted::head(format!("{path} was deleted"))
                        .delete(&path)
                        .at_path(&path),
                    l.json(&path),
                ),
            )
        })
        .collect()
}

fn delete_implementation(l: &Ledger) -> Vec<Site> {
    l.files_in("receipts/implementations")
        .into_iter()
        .map(|path| {
            Site::ok(
                site_id(&[stem(&path)]),
                with_task(
                    Planted::head(format!("{path} was deleted"))
                        .delete(&path)
                        .at_path(&path),
                    l.json(&path),
                ),
            )
        })
        .collect()
}
