//! Delivery and verification-loop operators, for goldens whose AGENTS.md declares the loop: a
//! changelist that misses a changed file, a delivery document deleted, a loop command broken, a
//! lint error, a test point that fails once or in two rounds.

use crate::corpus::model::fixture::ExpectedRounds;
use crate::corpus::taxonomy::Kind;
use crate::corpus::Files;
use crate::mutate::jsontext;
use crate::mutate::ledger::Ledger;
use crate::mutate::operator::{site_id, Family, Operator, Planted, Site};
use crate::mutate::operators::common::append_line;

pub fn operators() -> Vec<Operator> {
    vec![
        Operator { name: "changelist-misses-file", family: Family::Delivery, kind: Kind::ChangelistIncomplete,
            finds: "every changed file (head against base) a changelist under docs/delivery names", does: "removes it from the changelist", sites: changelist },
        Operator { name: "delete-delivery-doc", family: Family::Delivery, kind: Kind::DeliveryDocMissing,
            finds: "every document under docs/delivery", does: "deletes it", sites: delete_doc },
        Operator { name: "break-loop-command", family: Family::Delivery, kind: Kind::VerificationNotRunnable,
            finds: "every `*Command:` AGENTS.md declares", does: "points it at a script that does not exist", sites: break_command },
        Operator { name: "lint-error", family: Family::Delivery, kind: Kind::StandardsViolation,
            finds: "every Python file the change touches, when AGENTS.md declares a lintCommand", does: "adds trailing whitespace to its first line", sites: lint },
        Operator { name: "test-point-fails", family: Family::Delivery, kind: Kind::TestFailing,
            finds: "every `point(NAME, NEEDLE, FILE)` of the testCommand's script", does: "deletes the line of FILE that carries NEEDLE", sites: point_fails },
        Operator { name: "test-fails-twice", family: Family::Delivery, kind: Kind::TestFailing,
            finds: "every test point, as test-point-fails", does: "breaks it; the first fix misses (README only), so it fails in two rounds and is escalated", sites: fails_twice },
    ]
}

const AGENTS: &str = "AGENTS.md";

/// The AGENTS.md command `key` (e.g. `testCommand`), with its line.
fn command(l: &Ledger, key: &str) -> Option<(usize, String)> {
    let text = l.text(AGENTS)?;
    text.lines().enumerate().find_map(|(i, s)| {
        let rest = s
            .trim_start()
            .strip_prefix("- ")?
            .strip_prefix(key)?
            .strip_prefix(':')?;
        Some((i, rest.trim().trim_matches('`').to_owned()))
    })
}

fn changed(l: &Ledger) -> Vec<String> {
    let base = &l.trees.states.base;
    l.files
        .iter()
        .filter(|(p, c)| base.get(*p) != Some(*c))
        .map(|(p, _)| p.clone())
        .chain(base.keys().filter(|p| !l.files.contains_key(*p)).cloned())
        .collect()
}

fn changelist(l: &Ledger) -> Vec<Site> {
    let docs: Vec<String> = l
        .files
        .keys()
        .filter(|p| p.starts_with("docs/delivery/") && p.ends_with("-changelist.md"))
        .cloned()
        .collect();
    let mut out = Vec::new();
    for doc in docs {
        let Some(text) = l.text(&doc) else { continue };
        for file in changed(l) {
            if file == doc {
                continue;
            }
            let token = format!("`{file}`");
            if !text.contains(&token) {
                continue;
            }
            let kept: Vec<String> = text
                .lines()
                .filter(|s| !(s.starts_with('|') && s.contains(&token)))
                .map(|s| {
                    s.replace(&format!("{token}, "), "")
                        .replace(&format!(", {token}"), "")
                        .replace(&token, "")
                })
                .collect();
            out.push(Site::ok(
                site_id(&[&file]),
                Planted::head(format!(
                    "{doc} no longer names {file}, which the change touches"
                ))
                .write(&doc, jsontext::join(&kept))
                .at_path(&doc)
                .at_path(&file),
            ));
        }
    }
    out
}

fn delete_doc(l: &Ledger) -> Vec<Site> {
    l.files
        .keys()
        .filter(|p| p.starts_with("docs/delivery/") && gatebench_gittree::in_source_tree(p))
        .map(|p| {
            Site::ok(
                site_id(&[p
                    .trim_start_matches("docs/delivery/")
                    .trim_end_matches(".md")]),
                Planted::head(format!("the delivery document {p} was deleted"))
                    .delete(p)
                    .at_path(p),
            )
        })
        .collect()
}

fn break_command(l: &Ledger) -> Vec<Site> {
    let Some(text) = l.text(AGENTS) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for key in ["buildCommand", "testCommand", "perfCommand", "lintCommand"] {
        let Some((i, _)) = command(l, key) else {
            continue;
        };
        let lines: Vec<String> = text
            .lines()
            .enumerate()
            .map(|(j, s)| {
                if j == i {
                    format!("- {key}: `sh scripts/missing-{key}.sh`")
                } else {
                    s.to_owned()
                }
            })
            .collect();
        out.push(Site::ok(
            site_id(&[key]),
            Planted::head(format!(
                "AGENTS.md's {key} names a script that does not exist"
            ))
            .write(AGENTS, jsontext::join(&lines))
            .at_lines(AGENTS, [i as u64 + 1, i as u64 + 1]),
        ));
    }
    out
}

fn lint(l: &Ledger) -> Vec<Site> {
    if command(l, "lintCommand").is_none() {
        return Vec::new();
    }
    changed(l)
        .into_iter()
        .filter(|p| p.ends_with(".py") && l.files.contains_key(p))
        .map(|path| {
            let mut c = l.files[&path].to_vec();
            let at = c.iter().position(|b| *b == b'\n').unwrap_or(c.len());
            c.insert(at, b' ');
            Site::ok(
                site_id(&[&path]),
                Planted::head(format!("{path} has trailing whitespace on line 1"))
                    .write(&path, c)
                    .at_lines(&path, [1, 1]),
            )
        })
        .collect()
}

/// A test point broken: the file and its new content, the deleted line (1-based), the script and
/// the test point's line in it.
struct Broken {
    file: String,
    content: Vec<u8>,
    line: u64,
    script: String,
    point: u64,
}

/// The double-quoted strings of `text`, in order (`\"` and `\\` unescaped, as awk reads them).
fn quoted(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars();
    while chars.by_ref().any(|c| c == '"') {
        let mut s = String::new();
        while let Some(c) = chars.next() {
            match c {
                '"' => break,
                '\\' => s.extend(chars.next()),
                c => s.push(c),
            }
        }
        out.push(s);
    }
    out
}

/// (site, broken point or why not) of every test point of the testCommand's script: each call
/// `point("NAME", "NEEDLE", "FILE")` (over one or more lines) of the script's awk program.
fn points(l: &Ledger) -> Vec<(String, Result<Broken, String>)> {
    let Some((_, cmd)) = command(l, "testCommand") else {
        return Vec::new();
    };
    let Some(script) = cmd.split_whitespace().last() else {
        return Vec::new();
    };
    let Some(text) = l.text(script) else {
        return Vec::new();
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let start = i;
        i += 1;
        if !lines[start].trim_start().starts_with("point(\"") {
            continue;
        }
        let mut call = lines[start].trim().to_owned();
        while !call.ends_with(')') && i < lines.len() {
            call.push(' ');
            call.push_str(lines[i].trim());
            i += 1;
        }
        let strings = quoted(&call);
        let Some(name) = strings.first() else {
            continue;
        };
        let site = site_id(&[name]);
        let [_, needle, file] = &strings[..] else {
            out.push((
                site,
                Err("the test point is not point(NAME, NEEDLE, FILE)".into()),
            ));
            continue;
        };
        let Some(target) = l.text(file) else {
            out.push((site, Err(format!("{file} is not in the golden"))));
            continue;
        };
        let Some(at) = target.lines().position(|s| s.contains(needle.as_str())) else {
            out.push((site, Err(format!("{file} does not carry the needle"))));
            continue;
        };
        let kept: Vec<String> = target
            .lines()
            .enumerate()
            .filter(|(j, _)| *j != at)
            .map(|(_, s)| s.to_owned())
            .collect();
        out.push((
            site,
            Ok(Broken {
                file: file.clone(),
                content: jsontext::join(&kept).into_bytes(),
                line: at as u64 + 1,
                script: script.to_owned(),
                point: start as u64 + 1,
            }),
        ));
    }
    out
}

fn point_sites(l: &Ledger, twice: bool) -> Vec<Site> {
    points(l)
        .into_iter()
        .map(|(site, r)| match r {
            Err(e) => Site::unviable(site, e),
            Ok(Broken {
                file,
                content,
                line,
                script,
                point,
            }) => {
                let mut p = Planted::head(format!(
                    "the line of {file} a test point checks was deleted{}",
                    if twice {
                        "; the first fix edits only the README"
                    } else {
                        ""
                    }
                ))
                .write(&file, content.clone())
                .at_lines(&file, [line, line])
                .at_lines(&script, [point, point]);
                if twice {
                    let golden = l.trees.final_files();
                    let mut miss: Files = golden.clone();
                    miss.insert(file.clone(), content.into());
                    if let Some(readme) = golden.get("README.md") {
                        miss.insert(
                            "README.md".into(),
                            append_line(readme, "Tests are run with `sh scripts/test.sh`.").into(),
                        );
                    }
                    p.fixes = Some(vec![miss, golden.clone()]);
                    p.rounds = Some(ExpectedRounds::Never);
                }
                Site::ok(site, p)
            }
        })
        .collect()
}

fn point_fails(l: &Ledger) -> Vec<Site> {
    point_sites(l, false)
}

fn fails_twice(l: &Ledger) -> Vec<Site> {
    point_sites(l, true)
}
