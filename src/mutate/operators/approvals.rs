//! Approval operators: an approved artifact changed after its approval (content or whitespace
//! only) while the approval keeps the old sha256; the approval receipt deleted.

use crate::corpus::taxonomy::Kind;
use crate::mutate::ledger::Ledger;
use crate::mutate::operator::{site_id, Family, Operator, Planted, Site};
use crate::mutate::operators::common::append_line;

pub fn operators() -> Vec<Operator> {
    vec![
        Operator { name: "edit-approved-artifact", family: Family::Approvals, kind: Kind::ApprovalStale,
            finds: "every artifact an approval receipt lists", does: "changes it after approval (a line appended, or trailing whitespace only); the approval keeps the old sha256", sites: edit_approved },
        Operator { name: "delete-approval", family: Family::Approvals, kind: Kind::ApprovalMissing,
            finds: "every receipts/approvals/*.json", does: "deletes it", sites: delete_approval },
    ]
}

fn edit_approved(l: &Ledger) -> Vec<Site> {
    let mut out = Vec::new();
    for approval in l.files_in("receipts/approvals") {
        let (Some(v), Some(text)) = (l.json(&approval), l.text(&approval)) else {
            continue;
        };
        for (rel, _) in v["artifacts"].as_object().into_iter().flatten() {
            let path = l.path(rel);
            let placeholder = format!("{{{{gatebench:sha256:{path}}}}}");
            let json = path.ends_with(".json");
            for variant in ["content", "whitespace"] {
                let site = site_id(&[
                    rel.trim_end_matches(".md").trim_end_matches(".json"),
                    variant,
                ]);
                let (Some(sha), Some(content)) = (l.resolved_sha256(&path), l.files.get(&path))
                else {
                    out.push(Site::unviable(
                        site,
                        format!("{path} cannot be hashed before materializing"),
                    ));
                    continue;
                };
                if !text.contains(&placeholder) {
                    out.push(Site::unviable(
                        site,
                        "the approval does not hash the artifact by placeholder",
                    ));
                    continue;
                }
                let changed = match (variant, json) {
                    ("content", true) => {
                        out.push(Site::unviable(
                            site,
                            "a JSON artifact takes no appended line",
                        ));
                        continue;
                    }
                    ("content", false) => {
                        append_line(content, "\nOne more constraint, added after approval.")
                    }
                    _ => {
                        let mut c = content.to_vec();
                        let at = c.iter().position(|b| *b == b'\n').unwrap_or(c.len());
                        c.insert(at, b' ');
                        c
                    }
                };
                out.push(Site::ok(
                    site,
                    Planted::head(format!(
                        "{path} changed after {approval} approved it ({variant})"
                    ))
                    .write(&approval, text.replace(&placeholder, &sha))
                    .write(&path, changed)
                    .at_path(&path)
                    .at_path(&approval),
                ));
            }
        }
    }
    out
}

fn delete_approval(l: &Ledger) -> Vec<Site> {
    l.files_in("receipts/approvals")
        .into_iter()
        .map(|p| {
            let name = p
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .trim_end_matches(".json")
                .to_owned();
            // The artifacts it approved are left without an approval: a verifier may point at
            // any of them, or at the missing receipt.
            let mut planted = Planted::head(format!("the approval {p} was deleted"))
                .delete(&p)
                .at_path(&p);
            if let Some(v) = l.json(&p) {
                for (rel, _) in v["artifacts"].as_object().into_iter().flatten() {
                    planted = planted.at_path(&l.path(rel));
                }
            }
            Site::ok(site_id(&[&name]), planted)
        })
        .collect()
}
