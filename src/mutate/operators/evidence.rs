//! Evidence operators: a test receipt deleted, bound to an older tree or dropping an obligation; a
//! log edited after its receipt, deleted, or lacking a test id its receipt claims.

use crate::corpus::taxonomy::Kind;
use crate::mutate::jsontext;
use crate::mutate::ledger::Ledger;
use crate::mutate::operator::{site_id, Family, Operator, Planted, Site};
use crate::mutate::operators::common::{append_line, edit_json, object_of};

pub fn operators() -> Vec<Operator> {
    vec![
        Operator {
            name: "delete-test-receipt",
            family: Family::Evidence,
            kind: Kind::EvidenceMissing,
            finds: "every receipts/tests/*.json",
            does: "deletes it",
            sites: delete_receipt,
        },
        Operator {
            name: "receipt-old-tree",
            family: Family::Evidence,
            kind: Kind::EvidenceStale,
            finds: "every receipt and convergence report that binds the current source tree",
            does: "binds it to the base layer's source tree",
            sites: old_tree,
        },
        Operator {
            name: "edit-log-after-receipt",
            family: Family::Evidence,
            kind: Kind::EvidenceLogMismatch,
            finds: "every log a test receipt hashes",
            does: "appends a line to the log; the receipt keeps the old sha256",
            sites: edit_log,
        },
        Operator {
            name: "delete-log",
            family: Family::Evidence,
            kind: Kind::EvidenceLogMismatch,
            finds: "every log a test receipt names",
            does: "deletes the log",
            sites: delete_log,
        },
        Operator {
            name: "log-drops-test-id",
            family: Family::Evidence,
            kind: Kind::EvidenceMissing,
            finds: "every test id a test receipt claims for an obligation",
            does: "removes the log lines naming it (the receipt re-hashes the log)",
            sites: log_drops,
        },
        Operator {
            name: "receipt-drops-obligation",
            family: Family::Evidence,
            kind: Kind::EvidenceMissing,
            finds: "every obligation entry of every test receipt",
            does: "removes the entry",
            sites: receipt_drops,
        },
    ]
}

/// (receipt path, log path, parsed receipt) of every test receipt.
fn test_receipts(l: &Ledger) -> Vec<(String, Option<String>, serde_json::Value)> {
    l.files_in("receipts/tests")
        .into_iter()
        .filter_map(|p| {
            let v = l.json(&p)?;
            let log = v["log_file"].as_str().map(|f| l.path(f));
            Some((p, log, v))
        })
        .collect()
}

fn obligations_of(v: &serde_json::Value) -> Vec<String> {
    v["obligations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| o["id"].as_str().map(str::to_owned))
        .collect()
}

fn name(path: &str) -> &str {
    path.rsplit('/')
        .next()
        .unwrap_or(path)
        .split('.')
        .next()
        .unwrap_or_default()
}

fn delete_receipt(l: &Ledger) -> Vec<Site> {
    test_receipts(l)
        .into_iter()
        .map(|(path, _, v)| {
            let mut p = Planted::head(format!("the test receipt {path} was deleted"))
                .delete(&path)
                .at_path(&path);
            for o in obligations_of(&v) {
                p = p.at_obligation(&o);
            }
            Site::ok(site_id(&[name(&path)]), p)
        })
        .collect()
}

fn old_tree(l: &Ledger) -> Vec<Site> {
    let mut paths = Vec::new();
    for dir in [
        "receipts/tests",
        "receipts/implementations",
        "receipts/reviews",
        "receipts/evaluations",
    ] {
        paths.extend(l.files_in(dir));
    }
    paths.push(l.path("convergence-report.json"));
    paths
        .into_iter()
        .filter_map(|path| {
            let text = l.text(&path)?;
            let rel = path
                .strip_prefix(&format!("{}/", l.feature))
                .unwrap_or(&path);
            let site = site_id(&[rel.trim_end_matches(".json")]);
            if !text.contains("{{gatebench:source-tree}}") {
                return Some(Site::unviable(site, "binds no current source tree"));
            }
            let mut p = Planted::head(format!(
                "{path} binds the base layer's source tree, not the verified one"
            ))
            .write(
                &path,
                text.replace(
                    "{{gatebench:source-tree}}",
                    "{{gatebench:source-tree:base}}",
                ),
            )
            .at_path(&path);
            let v = l.json(&path).unwrap_or_default();
            if let Some(t) = v["task_id"].as_str() {
                p = p.at_task(t);
            }
            for o in obligations_of(&v) {
                p = p.at_obligation(&o);
            }
            Some(Site::ok(site, p))
        })
        .collect()
}

fn edit_log(l: &Ledger) -> Vec<Site> {
    test_receipts(l)
        .into_iter()
        .filter_map(|(path, log, _)| {
            let log = log?;
            let site = site_id(&[name(&path)]);
            let text = l.text(&path)?;
            let placeholder = format!("{{{{gatebench:sha256:{log}}}}}");
            let (Some(sha), true) = (l.resolved_sha256(&log), text.contains(&placeholder)) else {
                return Some(Site::unviable(
                    site,
                    "the receipt does not hash its log by placeholder",
                ));
            };
            let content = l.files.get(&log)?;
            Some(Site::ok(
                site,
                Planted::head(format!("{log} was edited after {path} recorded its sha256"))
                    .write(&path, text.replace(&placeholder, &sha))
                    .write(&log, append_line(content, "(re-run by hand: 1 passed)"))
                    .at_path(&log)
                    .at_path(&path),
            ))
        })
        .collect()
}

fn delete_log(l: &Ledger) -> Vec<Site> {
    test_receipts(l)
        .into_iter()
        .filter_map(|(path, log, _)| {
            let log = log?;
            l.files.contains_key(&log).then_some(())?;
            let site = site_id(&[name(&log)]);
            // The receipt keeps the sha256 it recorded; a placeholder naming a deleted file would
            // not materialize.
            let text = l.text(&path)?;
            let placeholder = format!("{{{{gatebench:sha256:{log}}}}}");
            let receipt = match l.resolved_sha256(&log) {
                Some(sha) => text.replace(&placeholder, &sha),
                None => {
                    return Some(Site::unviable(
                        site,
                        "the log cannot be hashed before materializing",
                    ))
                }
            };
            Some(Site::ok(
                site,
                Planted::head(format!("the log {log} of {path} was deleted"))
                    .write(&path, receipt)
                    .delete(&log)
                    .at_path(&log)
                    .at_path(&path),
            ))
        })
        .collect()
}

fn log_drops(l: &Ledger) -> Vec<Site> {
    let mut out = Vec::new();
    for (path, log, v) in test_receipts(l) {
        let Some(log) = log else { continue };
        let Some(text) = l.text(&log) else { continue };
        for o in v["obligations"].as_array().into_iter().flatten() {
            let id = o["id"].as_str().unwrap_or_default();
            for test in o["test_ids"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t.as_str())
            {
                let site = site_id(&[name(&path), id, test]);
                let kept: Vec<String> = text
                    .lines()
                    .filter(|s| !s.contains(test))
                    .map(str::to_owned)
                    .collect();
                if kept.len() == text.lines().count() {
                    out.push(Site::unviable(site, format!("{log} does not name {test}")));
                    continue;
                }
                out.push(Site::ok(
                    site,
                    Planted::head(format!(
                        "{log} no longer shows {test}, which {path} claims for {id}"
                    ))
                    .write(&log, jsontext::join(&kept))
                    .at_path(&log)
                    .at_path(&path)
                    .at_obligation(id),
                ));
            }
        }
    }
    out
}

fn receipt_drops(l: &Ledger) -> Vec<Site> {
    let mut out = Vec::new();
    for (path, _, v) in test_receipts(l) {
        for id in obligations_of(&v) {
            let site = site_id(&[name(&path), &id]);
            let edited = edit_json(l, &path, |lines| {
                Some(jsontext::remove(lines, object_of(lines, &id)?))
            });
            out.push(match edited {
                Ok(text) => Site::ok(
                    site,
                    Planted::head(format!("{path} no longer records a result for {id}"))
                        .write(&path, text)
                        .at_path(&path)
                        .at_obligation(&id),
                ),
                Err(e) => Site::unviable(site, e),
            });
        }
    }
    out
}
