//! The candidates of the semantic tier: every site of every code and test operator
//! (`gatebench-lang`) in a golden's cited code and cited tests, each a whole mutated tree with the
//! obligations it touches. Nothing here runs anything: `validate.rs` decides which candidates are
//! planted.

use gatebench_lang::{Lang, Mutation, Operator, OperatorFamily};
use sha2::{Digest, Sha256};

use crate::corpus::{Blob, Files};
use crate::mutate::ledger::{Ledger, Obligation};
use crate::mutate::mutant::mutant_id;
use crate::mutate::operator::site_id;

/// The operator name of a lying-agent mutant: a code mutant plus the test changes that keep the
/// suite green (`validate.rs` builds them from the code mutants the suite kills).
pub const LYING_AGENT: &str = "lying-agent";

/// One change to one file of a golden.
#[derive(Debug, Clone)]
pub struct Change {
    pub path: String,
    /// The golden's text of the file, which the mutation's edits apply to.
    pub original: String,
    pub mutation: Mutation,
}

/// One candidate: an operator applied at one site (a lying agent: several changes).
#[derive(Debug, Clone)]
pub struct Candidate {
    /// `<golden>--<operator>--<site>`, as every mutant id.
    pub id: String,
    pub golden: String,
    /// A `gatebench-lang` operator's name, or [`LYING_AGENT`].
    pub operator: String,
    pub family: OperatorFamily,
    pub changes: Vec<Change>,
    /// The obligations whose code refs (code operators) or test refs (test operators) the change
    /// touches, sorted.
    pub obligations: Vec<String>,
    /// The golden's final files with the changes made.
    pub files: Files,
}

impl Candidate {
    /// What the candidate does, in one line.
    pub fn description(&self) -> String {
        let parts: Vec<String> = self
            .changes
            .iter()
            .map(|c| format!("{}: {}", c.path, c.mutation.description))
            .collect();
        parts.join("; ")
    }

    /// A digest of everything the candidate's ground truth depends on: the tree its suite runs
    /// on, and the operator and site. A record entry whose key differs is stale.
    pub fn key(&self, command: &[String]) -> String {
        let tree = tree_of(&self.files);
        let mut h = Sha256::new();
        h.update(self.id.as_bytes());
        h.update([0]);
        h.update(tree.as_bytes());
        for arg in command {
            h.update([0]);
            h.update(arg.as_bytes());
        }
        gatebench_gittree::hex(&h.finalize())
    }
}

/// The git tree id of a file tree, as text.
pub fn tree_of(files: &Files) -> String {
    gatebench_gittree::tree_id(files.iter().map(|(p, c)| (p.as_str(), &**c))).to_string()
}

/// `path:a-b` or `path:a` as (path, [a, b]).
fn code_ref(r: &str) -> Option<(&str, [u32; 2])> {
    let (path, lines) = r.rsplit_once(':')?;
    let (a, b) = lines.split_once('-').unwrap_or((lines, lines));
    Some((path, [a.trim().parse().ok()?, b.trim().parse().ok()?]))
}

/// `path::name` as (path, name).
pub fn test_ref(r: &str) -> Option<(&str, &str)> {
    r.split_once("::")
}

/// Whether a path is a test file by the usual conventions (a `test` or `tests` folder, a
/// `test_*.py` / `*_test.py` / `*.test.js` / `*.spec.js` name).
pub fn is_test_path(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    path.split('/')
        .rev()
        .skip(1)
        .any(|dir| dir == "tests" || dir == "test" || dir == "__tests__")
        || name.starts_with("test_")
        || name.ends_with("_test.py")
        || name.contains(".test.")
        || name.contains(".spec.")
}

/// The site id of a change: the file's path without its extension, then the operator's site.
fn site_of(path: &str, site: &str) -> String {
    let stem = path.rsplit_once('.').map_or(path, |(s, _)| s);
    site_id(&[stem, site])
}

/// Every code and test candidate of `ledger`'s golden, sorted by id.
pub fn candidates(ledger: &Ledger<'_>) -> Vec<Candidate> {
    let obligations = ledger.obligations();
    let mut paths: Vec<(String, OperatorFamily)> = Vec::new();
    for o in &obligations {
        for r in &o.code_refs {
            if let Some((path, _)) = code_ref(r) {
                paths.push((path.to_owned(), OperatorFamily::Code));
            }
        }
        for r in &o.test_refs {
            if let Some((path, _)) = test_ref(r) {
                paths.push((path.to_owned(), OperatorFamily::Test));
            }
        }
    }
    paths.sort();
    paths.dedup();
    let mut out = Vec::new();
    for (path, family) in paths {
        if family == OperatorFamily::Code && is_test_path(&path) {
            continue;
        }
        let (Some(lang), Some(text)) = (Lang::of_path(&path), ledger.text(&path)) else {
            continue;
        };
        for op in Operator::all().filter(|o| o.family() == family) {
            let Ok(mutations) = gatebench_lang::mutations(lang, text, op) else {
                continue;
            };
            for m in mutations {
                let touched = touched(&obligations, &path, &m, family);
                if touched.is_empty() {
                    continue;
                }
                let changed = gatebench_lang::apply(text, &m.edits);
                let mut files = ledger.files.clone();
                files.insert(path.clone(), Blob::from(changed.into_bytes()));
                out.push(Candidate {
                    id: mutant_id(&ledger.golden.id, op.as_str(), &site_of(&path, &m.site)),
                    golden: ledger.golden.id.clone(),
                    operator: op.as_str().to_owned(),
                    family,
                    changes: vec![Change {
                        path: path.clone(),
                        original: text.to_owned(),
                        mutation: m,
                    }],
                    obligations: touched,
                    files,
                });
            }
        }
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// The obligations a mutation touches: for code, those citing lines of `path` that overlap the
/// mutation's; for tests, those citing the mutated test. A test operator that removes negative
/// assertions only counts for obligations whose test plan lists forbidden effects.
fn touched(
    obligations: &[Obligation],
    path: &str,
    m: &Mutation,
    family: OperatorFamily,
) -> Vec<String> {
    let mut out: Vec<String> = obligations
        .iter()
        .filter(|o| match family {
            OperatorFamily::Code => o
                .code_refs
                .iter()
                .filter_map(|r| code_ref(r))
                .any(|(p, [a, b])| p == path && a <= m.lines[1] && m.lines[0] <= b),
            OperatorFamily::Test => {
                o.test_refs
                    .iter()
                    .filter_map(|r| test_ref(r))
                    .any(|(p, name)| p == path && name == m.function)
                    && (m.operator != Operator::DropNegativeAssertions || o.forbids)
            }
        })
        .map(|o| o.id.clone())
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_split_and_test_paths_are_recognized() {
        assert_eq!(code_ref("src/a.py:3-9"), Some(("src/a.py", [3, 9])));
        assert_eq!(code_ref("src/a.py:15"), Some(("src/a.py", [15, 15])));
        assert_eq!(code_ref("src/a.py"), None);
        assert_eq!(
            test_ref("tests/t.py::test_x"),
            Some(("tests/t.py", "test_x"))
        );
        assert_eq!(
            test_ref("src/bucket.rs::tests::refill"),
            Some(("src/bucket.rs", "tests::refill"))
        );
        for p in [
            "tests/test_a.py",
            "test/parse.test.js",
            "tests/bucket.rs",
            "a/test_b.py",
        ] {
            assert!(is_test_path(p), "{p}");
        }
        for p in [
            "src/bucket.rs",
            "wordcount/top.py",
            "src/apply.js",
            "testing/x.py",
        ] {
            assert!(!is_test_path(p), "{p}");
        }
        assert_eq!(
            site_of("src/subscription/cancel.py", "cancel-2"),
            "src-subscription-cancel-cancel-2"
        );
    }
}
