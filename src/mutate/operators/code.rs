//! Code and test operators: the body a code ref points at replaced by a stub; the test function a
//! test ref names deleted; a passing test's log line turned into a failure.

use std::collections::BTreeMap;

use crate::corpus::taxonomy::Kind;
use crate::mutate::jsontext;
use crate::mutate::ledger::Ledger;
use crate::mutate::operator::{site_id, Family, Operator, Planted, Site};
use crate::mutate::operators::common::{comment, ref_lines, ref_path};

pub fn operators() -> Vec<Operator> {
    vec![
        Operator {
            name: "stub-code-ref",
            family: Family::Code,
            kind: Kind::ObligationNotImplemented,
            finds: "every distinct code ref with lines",
            does: "replaces those lines with a not-implemented stub (line count kept)",
            sites: stub,
        },
        Operator {
            name: "delete-test-function",
            family: Family::Code,
            kind: Kind::TestRefBroken,
            finds: "every distinct test ref",
            does: "deletes the test function it names from its file",
            sites: delete_test,
        },
        Operator {
            name: "log-says-failed",
            family: Family::Code,
            kind: Kind::TestFailing,
            finds: "every log line reporting a passed test that a test receipt claims",
            does: "makes the line report a failure (the receipt re-hashes the log)",
            sites: log_failed,
        },
    ]
}

/// Distinct refs over every obligation: ref -> the obligations citing it.
fn refs(l: &Ledger, code: bool) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for o in l.obligations() {
        for r in if code { &o.code_refs } else { &o.test_refs } {
            out.entry(r.clone()).or_default().push(o.id.clone());
        }
    }
    out
}

fn stub(l: &Ledger) -> Vec<Site> {
    refs(l, true)
        .into_iter()
        .filter_map(|(r, obligations)| {
            let [a, b] = ref_lines(&r)?;
            let path = ref_path(&r);
            let site = site_id(&[&r]);
            let (Some(text), Some(prefix)) = (l.text(path), comment(path)) else {
                return Some(Site::unviable(site, format!("{path} is not a source file")));
            };
            let mut lines = jsontext::lines(text);
            if b as usize > lines.len() {
                return Some(Site::unviable(
                    site,
                    format!("{r} is past the end of {path}"),
                ));
            }
            let pad: String = lines[a as usize - 1]
                .chars()
                .take_while(|c| c.is_whitespace())
                .collect();
            for line in &mut lines[a as usize - 1..b as usize] {
                *line = format!("{pad}{prefix} TODO: not implemented yet");
            }
            let mut p = Planted::head(format!("the code {r} points at was replaced by a stub"))
                .write(path, jsontext::join(&lines))
                .at_lines(path, [a, b]);
            for o in &obligations {
                p = p.at_obligation(o);
            }
            Some(Site::ok(site, p))
        })
        .collect()
}

/// The 0-based lines of the test function `name` in `text`: its decorators or attributes, its
/// header and its body.
fn test_span(lines: &[String], name: &str, python: bool) -> Option<(usize, usize)> {
    let header = lines.iter().position(|s| {
        let t = s.trim_start();
        if python {
            t.starts_with(&format!("def {name}(")) || t.starts_with(&format!("async def {name}("))
        } else {
            t.contains(&format!("fn {name}("))
                || t.contains(&format!("'{name}'"))
                || t.contains(&format!("\"{name}\""))
        }
    })?;
    let indent = |s: &String| s.len() - s.trim_start().len();
    let own = indent(&lines[header]);
    let mut start = header;
    while start > 0 && indent(&lines[start - 1]) == own && {
        let t = lines[start - 1].trim_start();
        t.starts_with('@') || t.starts_with("#[")
    } {
        start -= 1;
    }
    let end = if python {
        (header + 1..lines.len())
            .find(|&i| !lines[i].trim().is_empty() && indent(&lines[i]) <= own)
            .map_or(lines.len() - 1, |i| i - 1)
    } else {
        (header..lines.len())
            .find(|&i| indent(&lines[i]) == own && lines[i].trim_start().starts_with('}'))?
    };
    Some((start, end))
}

fn delete_test(l: &Ledger) -> Vec<Site> {
    refs(l, false)
        .into_iter()
        .map(|(r, obligations)| {
            let site = site_id(&[&r]);
            let Some((path, test)) = r.split_once("::") else {
                return Site::unviable(site, "the test ref names no test");
            };
            let name = test.rsplit("::").next().unwrap_or(test);
            let Some(text) = l.text(path) else {
                return Site::unviable(site, format!("{path} is not in the golden"));
            };
            let lines = jsontext::lines(text);
            let Some(span) = test_span(&lines, name, path.ends_with(".py")) else {
                return Site::unviable(site, format!("no test function `{name}` found in {path}"));
            };
            let mut kept: Vec<String> = lines[..span.0].to_vec();
            kept.extend_from_slice(&lines[span.1 + 1..]);
            let mut p = Planted::head(format!("the test {r} was deleted from its file"))
                .write(path, jsontext::join(&kept))
                .at_path(path);
            for o in &obligations {
                p = p.at_obligation(o);
            }
            Site::ok(site, p)
        })
        .collect()
}

/// The line turned into a failure, or `None` for a line that reports no pass.
fn failed(line: &str) -> Option<String> {
    if line.contains("PASSED") {
        return Some(line.replacen("PASSED", "FAILED", 1));
    }
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix("ok ") {
        return Some(format!("{}not ok {rest}", &line[..line.len() - t.len()]));
    }
    if let Some(head) = line.trim_end().strip_suffix(" ... ok") {
        return Some(format!("{head} ... FAILED"));
    }
    line.contains("\u{2714}")
        .then(|| line.replacen('\u{2714}', "\u{2716}", 1))
}

fn log_failed(l: &Ledger) -> Vec<Site> {
    let mut out = Vec::new();
    for receipt in l.files_in("receipts/tests") {
        let Some(v) = l.json(&receipt) else { continue };
        let Some(log) = v["log_file"].as_str().map(|f| l.path(f)) else {
            continue;
        };
        let Some(text) = l.text(&log) else { continue };
        let lines = jsontext::lines(text);
        for o in v["obligations"].as_array().into_iter().flatten() {
            let id = o["id"].as_str().unwrap_or_default();
            for test in o["test_ids"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t.as_str())
            {
                let site = site_id(&[id, test]);
                let Some((i, new)) = lines.iter().enumerate().find_map(|(i, s)| {
                    s.contains(test)
                        .then(|| failed(s))
                        .flatten()
                        .map(|n| (i, n))
                }) else {
                    out.push(Site::unviable(
                        site,
                        format!("{log} has no passing line for {test}"),
                    ));
                    continue;
                };
                let mut changed = lines.clone();
                changed[i] = new;
                out.push(Site::ok(
                    site,
                    Planted::head(format!("{log} reports {test} ({id}) as failed"))
                        .write(&log, jsontext::join(&changed))
                        .at_lines(&log, [i as u64 + 1, i as u64 + 1])
                        .at_path(&receipt)
                        .at_obligation(id),
                ));
            }
        }
    }
    out
}
