//! Ownership operators: a file no task owns changed in each layer (committed, staged, unstaged)
//! or added untracked next to it.

use crate::corpus::model::fixture::LayerName;
use crate::corpus::taxonomy::Kind;
use crate::mutate::ledger::Ledger;
use crate::mutate::operator::{site_id, Family, Operator, Planted, Site};
use crate::mutate::operators::common::{append_line, comment};

pub fn operators() -> Vec<Operator> {
    vec![
        Operator {
            name: "unowned-change-committed",
            family: Family::Ownership,
            kind: Kind::UnownedChange,
            finds: "every source file no task owns",
            does: "appends a comment line, committed",
            sites: committed,
        },
        Operator {
            name: "unowned-change-staged",
            family: Family::Ownership,
            kind: Kind::UnownedChange,
            finds: "every source file no task owns",
            does: "appends a comment line, staged",
            sites: staged,
        },
        Operator {
            name: "unowned-change-unstaged",
            family: Family::Ownership,
            kind: Kind::UnownedChange,
            finds: "every source file no task owns",
            does: "appends a comment line in the work tree only",
            sites: unstaged,
        },
        Operator {
            name: "unowned-change-untracked",
            family: Family::Ownership,
            kind: Kind::UnownedChange,
            finds: "every folder holding a source file no task owns",
            does: "adds an untracked file there",
            sites: untracked,
        },
    ]
}

/// Source files (outside the ledger and the loop's state) that no task owns.
fn unowned(l: &Ledger) -> Vec<String> {
    let tasks = l.tasks();
    l.files
        .keys()
        .filter(|p| gatebench_gittree::in_source_tree(p) && !l.owned(p, &tasks))
        .cloned()
        .collect()
}

fn change(l: &Ledger, into: LayerName, layer: &str) -> Vec<Site> {
    unowned(l)
        .into_iter()
        .map(|path| {
            let site = site_id(&[&path]);
            let Some(prefix) = comment(&path) else {
                return Site::unviable(site, format!("{path} takes no comment line"));
            };
            let content = &l.files[&path];
            let line = format!(
                "{prefix} local tweak{}",
                if prefix.is_empty() { "." } else { "" }
            );
            let line = line.trim_start();
            Site::ok(
                site,
                Planted::new(
                    format!("{path}, which no task owns, was changed ({layer})"),
                    into,
                )
                .write(&path, append_line(content, line))
                .at_path(&path),
            )
        })
        .collect()
}

fn committed(l: &Ledger) -> Vec<Site> {
    change(l, LayerName::Head, "committed")
}

fn staged(l: &Ledger) -> Vec<Site> {
    change(l, LayerName::Staged, "staged")
}

fn unstaged(l: &Ledger) -> Vec<Site> {
    change(l, LayerName::Unstaged, "unstaged")
}

fn untracked(l: &Ledger) -> Vec<Site> {
    let mut dirs: Vec<String> = unowned(l)
        .iter()
        .map(|p| {
            p.rsplit_once('/')
                .map_or(String::new(), |(d, _)| d.to_owned())
        })
        .collect();
    dirs.dedup();
    dirs.sort();
    dirs.dedup();
    dirs.into_iter()
        .map(|dir| {
            let path = if dir.is_empty() {
                "scratch.txt".to_owned()
            } else {
                format!("{dir}/scratch.txt")
            };
            Site::ok(
                site_id(&[if dir.is_empty() { "root" } else { &dir }]),
                Planted::new(
                    format!(
                        "an untracked file {path}, which no task owns, was left in the work tree"
                    ),
                    LayerName::Unstaged,
                )
                .write(&path, "notes while debugging\n")
                .at_path(&path),
            )
        })
        .collect()
}
