//! Fixture hygiene: nothing a fixture materializes gives its answer away (`gatebench check`).
//!
//! Two rules, over every file of every layer a fixture materializes (base, head, staged,
//! unstaged, scripted fixes):
//!
//! 1. No file says `planted`, `omission`, `fixture` or `gatebench` (any case), once
//!    `{{gatebench:...}}` placeholders are taken out (they are filled before materialization) and
//!    the vocabularies a real repository has too are taken out: the Loom plan's `omission-hunter`
//!    reviewer (also written `Omission hunter`), pytest's `pytest.fixture`, and the reference
//!    gate's generator command `gatebench workflow-schema`, which the schema file it writes names.
//! 2. The words of an omission fixture's id do not appear in the comments of its planted files.
//!    The words are the id minus its golden's id (`subscription-cancel-task-state-missing` with
//!    golden `subscription-cancel`: `task-state-missing`), split at `-`, those of 4 or more
//!    letters (`task`, `state`, `missing`). Planted files are those whose content differs from
//!    the golden's file at the same path and layer (or that the golden lacks). Comment lines are
//!    told by file type: `#` (shell, Python, YAML, TOML, Makefile, ...), `//` and `/* */` lines
//!    (Rust, JavaScript, TypeScript, Go, C, Java), `--` (SQL, Lua), `<!--` (Markdown, HTML). A
//!    word matches whole, any case. Text that is not in a comment (code, prose, data) is not
//!    checked: the words of an id are ordinary words that the work itself may need.

use std::collections::BTreeMap;

use regex::Regex;

use crate::corpus::{Composed, Corpus, Files, Fixture};
use crate::error::Error;

/// The words no materialized file may contain.
pub const TELLTALE: [&str; 4] = ["planted", "omission", "fixture", "gatebench"];

/// Phrases that hold a telltale word but belong to another vocabulary (removed before checking).
pub const ALLOWED: [&str; 4] = [
    "omission-hunter",
    "omission hunter",
    "pytest.fixture",
    "gatebench workflow-schema",
];

/// Every layer's files of a fixture, by layer name.
fn layers(f: &Composed) -> BTreeMap<String, &Files> {
    let mut out = BTreeMap::new();
    out.insert("base".to_owned(), &f.states.base);
    out.insert("head".to_owned(), &f.states.head);
    if let Some(s) = &f.states.staged {
        out.insert("staged".to_owned(), s);
    }
    if let Some(u) = &f.states.unstaged {
        out.insert("unstaged".to_owned(), u);
    }
    for (i, fix) in f.fixes.iter().enumerate() {
        out.insert(format!("fix{}", i + 1), &fix.files);
    }
    out
}

/// The words of an omission fixture's id that its planted comments must not say.
pub fn id_words(id: &str, golden: &str) -> Vec<String> {
    let rest = id.strip_prefix(golden).unwrap_or(id);
    rest.split('-')
        .filter(|w| w.len() >= 4 && w.chars().all(|c| c.is_ascii_alphabetic()))
        .map(str::to_lowercase)
        .collect()
}

/// The comment markers of a file, by its name.
fn comment_markers(path: &str) -> &'static [&'static str] {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "md" | "html" | "htm" | "xml" => &["<!--"],
        "rs" | "js" | "ts" | "go" | "c" | "h" | "java" | "kt" | "swift" | "cpp" => {
            &["//", "/*", "*"]
        }
        "sql" | "lua" => &["--"],
        "json" => &[],
        _ => &["#"],
    }
}

fn is_comment(line: &str, markers: &[&str]) -> bool {
    let t = line.trim_start();
    markers.iter().any(|m| t.starts_with(m))
}

/// The problems of one fixture (its trees `trees`; its golden's with it): one message per
/// offending line.
pub fn check_fixture(
    f: &Fixture,
    trees: &Composed,
    golden: Option<(&Fixture, &Composed)>,
) -> Vec<String> {
    let placeholder = Regex::new(r"\{\{gatebench:[^}]*\}\}").expect("a valid regex");
    let telltale = Regex::new(r"(?i)planted|omission|fixture|gatebench").expect("a valid regex");
    let words = golden.map_or_else(Vec::new, |(g, _)| id_words(&f.id, &g.id));
    let word_res: Vec<(String, Regex)> = words
        .iter()
        .map(|w| {
            let re = Regex::new(&format!(r"(?i)\b{}\b", regex::escape(w))).expect("a valid regex");
            (w.clone(), re)
        })
        .collect();
    let golden_layers = golden.map(|(_, trees)| layers(trees));
    let mut problems = Vec::new();
    for (layer, files) in layers(trees) {
        let golden_files = golden_layers
            .as_ref()
            .and_then(|g| g.get(&layer).or_else(|| g.get("head")).copied());
        for (path, bytes) in files {
            let unchanged = golden_files.is_some_and(|g| g.get(path) == Some(bytes));
            // A golden's problems are reported once, with the golden.
            if golden.is_some() && unchanged {
                continue;
            }
            let text = String::from_utf8_lossy(bytes);
            let markers = comment_markers(path);
            for (n, line) in text.lines().enumerate() {
                let mut clean = placeholder.replace_all(line, "").into_owned();
                for allowed in ALLOWED {
                    clean = Regex::new(&format!("(?i){}", regex::escape(allowed)))
                        .expect("a valid regex")
                        .replace_all(&clean, "")
                        .into_owned();
                }
                if let Some(m) = telltale.find(&clean) {
                    problems.push(format!(
                        "{layer} {path}:{}: says \"{}\" (a fixture must not name itself)",
                        n + 1,
                        m.as_str()
                    ));
                }
                if golden.is_some() && is_comment(line, markers) {
                    for (word, re) in &word_res {
                        if re.is_match(line) {
                            problems.push(format!(
                                "{layer} {path}:{}: a comment of a planted file says \"{word}\", a \
                                 word of the fixture's id",
                                n + 1
                            ));
                        }
                    }
                }
            }
        }
    }
    problems.sort();
    problems.dedup();
    problems
}

/// Every fixture of the corpus checked, composed one at a time; one error per fixture with
/// problems (or whose files cannot be composed), naming its file.
pub fn check(corpus: &Corpus) -> Vec<Error> {
    let by_id: BTreeMap<&str, &Fixture> =
        corpus.fixtures.iter().map(|f| (f.id.as_str(), f)).collect();
    corpus
        .fixtures
        .iter()
        .filter_map(|f| {
            let golden = f.golden.as_deref().and_then(|g| by_id.get(g).copied());
            let composed = f.compose().and_then(|trees| {
                let golden = golden.map(|g| g.compose().map(|t| (g, t))).transpose()?;
                Ok((trees, golden))
            });
            let (trees, golden) = match composed {
                Ok(both) => both,
                Err(e) => return Some(e),
            };
            let golden = golden.as_ref().map(|(g, t)| (*g, &**t));
            let problems = check_fixture(f, &trees, golden);
            (!problems.is_empty()).then(|| {
                Error::invalid(
                    &f.file,
                    format!(
                        "fixture hygiene (docs: src/corpus/loader/hygiene.rs):\n  {}",
                        problems.join("\n  ")
                    ),
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_words_are_the_ids_own_part_split_with_short_ones_dropped() {
        assert_eq!(
            id_words(
                "subscription-cancel-task-state-missing",
                "subscription-cancel"
            ),
            vec!["task", "state", "missing"]
        );
        assert_eq!(
            id_words("loop-wordcount-fix-misses-build-error", "loop-wordcount"),
            vec!["misses", "build", "error"]
        );
    }

    #[test]
    fn the_bundled_fixtures_are_clean() {
        let corpus = crate::corpus::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures"
        )))
        .unwrap_or_else(|e| panic!("{e:?}"));
        let errors: Vec<String> = check(&corpus).iter().map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{}", errors.join("\n"));
    }

    #[test]
    fn a_planted_comment_or_a_telltale_word_is_found() {
        let corpus = crate::corpus::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures"
        )))
        .unwrap_or_else(|e| panic!("{e:?}"));
        let golden = corpus.get("subscription-cancel").unwrap();
        let golden = (golden, &*golden.compose().unwrap());
        let omission = corpus
            .get("subscription-cancel-task-state-missing")
            .unwrap();
        let mut trees = (*omission.compose().unwrap()).clone();
        assert!(check_fixture(omission, &trees, Some(golden)).is_empty());
        trees.states.head.insert(
            "src/note.py".into(),
            b"x = 1\n# the state file is missing on purpose\n"[..].into(),
        );
        trees
            .states
            .head
            .insert("NOTES.md".into(), b"Planted here.\n"[..].into());
        let problems = check_fixture(omission, &trees, Some(golden));
        assert!(
            problems
                .iter()
                .any(|p| p.contains("src/note.py:2") && p.contains("\"missing\"")),
            "{problems:?}"
        );
        assert!(
            problems
                .iter()
                .any(|p| p.contains("src/note.py:2") && p.contains("\"state\"")),
            "{problems:?}"
        );
        assert!(
            problems
                .iter()
                .any(|p| p.contains("NOTES.md:1") && p.contains("Planted")),
            "{problems:?}"
        );
        // Outside comments the id's words are ordinary words.
        trees
            .states
            .head
            .insert("src/note.py".into(), b"state = 'missing'\n"[..].into());
        trees.states.head.remove("NOTES.md");
        assert!(check_fixture(omission, &trees, Some(golden)).is_empty());
    }
}
