//! Reference operators: a code ref to a missing file, past the end of its file or to an absent
//! symbol; a test ref to a missing file or to a test id that is not in the file.

use crate::corpus::taxonomy::Kind;
use crate::mutate::ledger::{line_count, Ledger, Obligation};
use crate::mutate::operator::{site_id, Family, Operator, Planted, Site};
use crate::mutate::operators::common::{missing_path, ref_lines, ref_path, replace_ref};

pub fn operators() -> Vec<Operator> {
    vec![
        Operator {
            name: "code-ref-missing-file",
            family: Family::Refs,
            kind: Kind::CodeRefBroken,
            finds: "every code ref of every obligation",
            does: "points it at a file that does not exist",
            sites: code_missing,
        },
        Operator {
            name: "code-ref-past-eof",
            family: Family::Refs,
            kind: Kind::CodeRefBroken,
            finds: "every code ref with lines",
            does: "moves its lines past the end of the file",
            sites: code_past_eof,
        },
        Operator {
            name: "code-ref-unknown-symbol",
            family: Family::Refs,
            kind: Kind::CodeRefBroken,
            finds: "every code ref",
            does: "names a symbol that is not in the file",
            sites: code_symbol,
        },
        Operator {
            name: "test-ref-missing-file",
            family: Family::Refs,
            kind: Kind::TestRefBroken,
            finds: "every test ref of every obligation",
            does: "points it at a test file that does not exist",
            sites: test_missing,
        },
        Operator {
            name: "test-ref-unknown-test",
            family: Family::Refs,
            kind: Kind::TestRefBroken,
            finds: "every test ref",
            does: "names a test id that is not in the file",
            sites: test_unknown,
        },
    ]
}

fn per_ref(
    l: &Ledger,
    key: &str,
    refs: impl Fn(&Obligation) -> &Vec<String>,
    what: &str,
    new: impl Fn(&Ledger, &str) -> Option<String>,
) -> Vec<Site> {
    let path = l.requirements_path();
    let mut out = Vec::new();
    for o in l.obligations() {
        for (i, r) in refs(&o).iter().enumerate() {
            let site = site_id(&[&o.id, &format!("{}", i + 1)]);
            let Some(replacement) = new(l, r) else {
                out.push(Site::unviable(site, format!("`{r}` has no such site")));
                continue;
            };
            out.push(match replace_ref(l, &o.id, key, r, &replacement) {
                Ok(text) => Site::ok(
                    site,
                    Planted::head(format!(
                        "{what}: obligation {} cites `{replacement}` instead of `{r}`",
                        o.id
                    ))
                    .write(&path, text)
                    .at_path(&path)
                    .at_obligation(&o.id)
                    .at_requirement(&o.requirement),
                ),
                Err(e) => Site::unviable(site, e),
            });
        }
    }
    out
}

fn code_missing(l: &Ledger) -> Vec<Site> {
    per_ref(
        l,
        "code_refs",
        |o| &o.code_refs,
        "a code ref names a missing file",
        |_, r| {
            let path = ref_path(r);
            Some(format!("{}{}", missing_path(path), &r[path.len()..]))
        },
    )
}

fn code_past_eof(l: &Ledger) -> Vec<Site> {
    per_ref(
        l,
        "code_refs",
        |o| &o.code_refs,
        "a code ref's lines are past the end of its file",
        |l, r| {
            ref_lines(r)?;
            let path = ref_path(r);
            let n = line_count(l.files.get(path)?);
            Some(format!("{path}:{}-{}", n + 1, n + 5))
        },
    )
}

fn code_symbol(l: &Ledger) -> Vec<Site> {
    per_ref(
        l,
        "code_refs",
        |o| &o.code_refs,
        "a code ref names a symbol the file lacks",
        |_, r| Some(format!("{}::gatebench_absent_symbol", ref_path(r))),
    )
}

fn test_missing(l: &Ledger) -> Vec<Site> {
    per_ref(
        l,
        "test_refs",
        |o| &o.test_refs,
        "a test ref names a missing file",
        |_, r| {
            let (path, test) = r.split_once("::")?;
            Some(format!("{}::{test}", missing_path(path)))
        },
    )
}

fn test_unknown(l: &Ledger) -> Vec<Site> {
    per_ref(
        l,
        "test_refs",
        |o| &o.test_refs,
        "a test ref names a test the file lacks",
        |_, r| r.contains("::").then(|| format!("{r}_gone")),
    )
}
