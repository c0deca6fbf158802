//! Convergence operators: a public function no obligation asked for, added without approval; the
//! convergence report dropping an obligation or classifying it as missing.

use std::collections::BTreeSet;

use crate::corpus::taxonomy::Kind;
use crate::mutate::jsontext;
use crate::mutate::ledger::{line_count, Ledger};
use crate::mutate::operator::{site_id, Family, Operator, Planted, Site};
use crate::mutate::operators::common::{edit_json, object_of, ref_path};

pub fn operators() -> Vec<Operator> {
    vec![
        Operator {
            name: "unrequested-public-function",
            family: Family::Convergence,
            kind: Kind::UnrequestedChange,
            finds: "every source file a code ref cites",
            does: "appends a public function no obligation asked for",
            sites: unrequested,
        },
        Operator {
            name: "convergence-drops-obligation",
            family: Family::Convergence,
            kind: Kind::ConvergenceIncomplete,
            finds: "every obligation the convergence report classifies",
            does: "removes its entry",
            sites: drops,
        },
        Operator {
            name: "convergence-says-missing",
            family: Family::Convergence,
            kind: Kind::ObligationNotImplemented,
            finds: "every obligation the convergence report classifies as implemented",
            does: "classifies it as missing",
            sites: missing,
        },
    ]
}

fn unrequested(l: &Ledger) -> Vec<Site> {
    let files: BTreeSet<String> = l
        .obligations()
        .iter()
        .flat_map(|o| o.code_refs.iter().map(|r| ref_path(r).to_owned()))
        .collect();
    files
        .into_iter()
        .filter_map(|path| {
            let content = l.files.get(&path)?;
            let ext = path.rsplit('.').next().unwrap_or_default();
            let added = match ext {
                "py" => "\n\ndef export_all_settings():\n    return {}\n",
                "rs" => "\n/// Exports every setting.\npub fn export_all_settings() -> Vec<String> {\n    Vec::new()\n}\n",
                // The bundled JS golden is an ES module: a CommonJS export would not even load.
                "js" => "\nexport function exportAllSettings() {\n  return {};\n}\n",
                _ => return Some(Site::unviable(site_id(&[&path]), "no public function syntax known for this file")),
            };
            let start = line_count(content) + 2;
            let mut new = content.to_vec();
            new.extend_from_slice(added.as_bytes());
            let end = line_count(&new);
            Some(Site::ok(site_id(&[&path]), Planted::head(format!("{path} gained a public function no obligation asked for"))
                .write(&path, new)
                .at_lines(&path, [start.min(end), end])))
        })
        .collect()
}

fn classified(l: &Ledger) -> Vec<(String, String)> {
    let path = l.path("convergence-report.json");
    l.json(&path)
        .map(|v| {
            v["obligations"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|o| {
                    Some((
                        o["id"].as_str()?.to_owned(),
                        o["classification"].as_str().unwrap_or_default().to_owned(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn drops(l: &Ledger) -> Vec<Site> {
    let path = l.path("convergence-report.json");
    classified(l)
        .into_iter()
        .map(|(id, _)| {
            let site = site_id(&[&id]);
            match edit_json(l, &path, |lines| {
                Some(jsontext::remove(lines, object_of(lines, &id)?))
            }) {
                Ok(text) => Site::ok(
                    site,
                    Planted::head(format!("the convergence report no longer classifies {id}"))
                        .write(&path, text)
                        .at_path(&path)
                        .at_obligation(&id),
                ),
                Err(e) => Site::unviable(site, e),
            }
        })
        .collect()
}

fn missing(l: &Ledger) -> Vec<Site> {
    let path = l.path("convergence-report.json");
    classified(l)
        .into_iter()
        .map(|(id, class)| {
            let site = site_id(&[&id]);
            if class != "implemented" {
                return Site::unviable(site, format!("{id} is classified {class}"));
            }
            let edited = edit_json(l, &path, |lines| {
                let obj = object_of(lines, &id)?;
                let span = jsontext::member(lines, obj, "classification")?;
                Some(jsontext::replace(
                    lines,
                    span,
                    &["\"classification\": \"missing\"".into()],
                ))
            });
            match edited {
                Ok(text) => {
                    let lines = crate::mutate::operators::common::object_lines(&text, &id);
                    let p =
                        Planted::head(format!("the convergence report classifies {id} as missing"));
                    let p = match lines {
                        Some(ls) => p.at_lines(&path, ls),
                        None => p.at_path(&path),
                    };
                    Site::ok(site, p.write(&path, text).at_obligation(&id))
                }
                Err(e) => Site::unviable(site, e),
            }
        })
        .collect()
}
