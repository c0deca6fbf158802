//! Placeholders in fixture files (`{{gatebench:KIND[:ARG]}}`): checked when a fixture loads, filled
//! when it is materialized, so that receipts and approvals bind to real commit, tree and file ids.

use std::collections::HashMap;
use std::sync::OnceLock;

use regex::Regex;

use gatebench_gittree as gittree;

use crate::corpus::model::files::{Blob, Files};

/// A layer of a materialized repository, in the order they are built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    Base,
    Head,
    Staged,
    Unstaged,
    /// The n-th scripted fix (1-based), committed after a round.
    Fix(u32),
}

impl Stage {
    fn rank(self) -> u32 {
        match self {
            Stage::Base => 0,
            Stage::Head => 1,
            Stage::Staged => 2,
            Stage::Unstaged => 3,
            Stage::Fix(n) => 3 + n,
        }
    }

    pub fn name(self) -> String {
        match self {
            Stage::Base => "base".into(),
            Stage::Head => "head".into(),
            Stage::Staged => "staged".into(),
            Stage::Unstaged => "unstaged".into(),
            Stage::Fix(n) => format!("fix{n}"),
        }
    }
}

/// One placeholder as written in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placeholder {
    Commit(Stage),
    Tree(Stage),
    /// The source tree of an earlier stage, or of the stage being built (`None`).
    SourceTree(Option<Stage>),
    /// The `diff_sha256` of an earlier stage, or of the stage being built (`None`): its source
    /// files against the base layer's (`gittree::diff_sha256`).
    DiffSha256(Option<Stage>),
    Sha256(String),
}

fn pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\{\{gatebench:([^}:]*)(?::([^}]*))?\}\}").expect("valid regex"))
}

fn parse_stage(arg: &str) -> Option<Stage> {
    match arg {
        "base" => Some(Stage::Base),
        "head" => Some(Stage::Head),
        "staged" => Some(Stage::Staged),
        _ => None,
    }
}

fn parse_one(kind: &str, arg: Option<&str>) -> Result<Placeholder, String> {
    let stage = |what: &str| {
        let arg = arg.ok_or_else(|| {
            format!("`{what}` needs a layer: `{{{{gatebench:{what}:base}}}}` or `:head`")
        })?;
        parse_stage(arg)
            .ok_or_else(|| format!("`{what}:{arg}` names no layer (base, head or staged)"))
    };
    match kind {
        "commit" => Ok(Placeholder::Commit(stage("commit")?)),
        "tree" => Ok(Placeholder::Tree(stage("tree")?)),
        "source-tree" => match arg {
            None => Ok(Placeholder::SourceTree(None)),
            Some(_) => Ok(Placeholder::SourceTree(Some(stage("source-tree")?))),
        },
        "diff-sha256" => match arg {
            None => Ok(Placeholder::DiffSha256(None)),
            Some(_) => Ok(Placeholder::DiffSha256(Some(stage("diff-sha256")?))),
        },
        "sha256" => match arg {
            Some(path) if !path.is_empty() => {
                crate::corpus::model::paths::check_repo_path(path)?;
                Ok(Placeholder::Sha256(path.to_owned()))
            }
            _ => Err("`sha256` needs a path: `{{gatebench:sha256:PATH}}`".into()),
        },
        other => Err(format!(
            "`{{{{gatebench:{other}}}}}` names nothing: known placeholders are commit, tree, source-tree, diff-sha256 and sha256"
        )),
    }
}

/// Every placeholder in `text`, with the 1-based line it is on. A `{{gatebench:` that does not
/// parse is an error. Linear in the length of the text, however many placeholders it holds.
pub fn scan(text: &str) -> Result<Vec<(usize, Placeholder)>, (usize, String)> {
    // Lines are counted forward from the last offset looked up: offsets only grow.
    let mut counted = (0usize, 1usize);
    let mut line_of = |offset: usize| {
        let (from, line) = counted;
        let line = line
            + text.as_bytes()[from..offset]
                .iter()
                .filter(|b| **b == b'\n')
                .count();
        counted = (offset, line);
        line
    };
    let mut out = Vec::new();
    let mut next_opening = 0;
    for cap in pattern().captures_iter(text) {
        let whole = cap.get(0).expect("group 0 always exists");
        // An opening between the previous placeholder and this one never closed.
        if let Some(gap) = text[next_opening..whole.start()].find("{{gatebench:") {
            return Err((
                line_of(next_opening + gap),
                "an unterminated `{{gatebench:` placeholder".into(),
            ));
        }
        let line = line_of(whole.start());
        let kind = cap.get(1).map_or("", |m| m.as_str());
        let arg = cap.get(2).map(|m| m.as_str());
        out.push((line, parse_one(kind, arg).map_err(|e| (line, e))?));
        next_opening = whole.end();
    }
    if let Some(gap) = text[next_opening..].find("{{gatebench:") {
        return Err((
            line_of(next_opening + gap),
            "an unterminated `{{gatebench:` placeholder".into(),
        ));
    }
    Ok(out)
}

/// Checks the placeholders of one file of `stage` against what exists when it is built: earlier
/// layers only, the current source tree only inside the ledger, `sha256:` paths that exist.
pub fn check_file(
    stage: Stage,
    path: &str,
    text: &str,
    files: &Files,
    has_stage: &dyn Fn(Stage) -> bool,
) -> Result<(), (usize, String)> {
    for (line, placeholder) in scan(text)? {
        let earlier = |s: Stage, what: &str| -> Result<(), (usize, String)> {
            if s.rank() >= stage.rank() {
                return Err((line, format!(
                    "`{what}:{}` is used in layer `{}`, but only earlier layers exist when it is built",
                    s.name(),
                    stage.name()
                )));
            }
            if !has_stage(s) {
                return Err((
                    line,
                    format!(
                        "`{what}:{}` names a layer this fixture does not have",
                        s.name()
                    ),
                ));
            }
            Ok(())
        };
        match placeholder {
            Placeholder::Commit(s) | Placeholder::Tree(s) if s == Stage::Staged => {
                return Err((line, "the staged layer is not a commit and has no commit or tree id; use `source-tree:staged`".into()));
            }
            Placeholder::Commit(s) => earlier(s, "commit")?,
            Placeholder::Tree(s) => earlier(s, "tree")?,
            Placeholder::SourceTree(Some(s)) => earlier(s, "source-tree")?,
            Placeholder::DiffSha256(Some(s)) => earlier(s, "diff-sha256")?,
            Placeholder::SourceTree(None) | Placeholder::DiffSha256(None) => {
                if !gittree::in_ledger(path) {
                    let what = if placeholder == Placeholder::DiffSha256(None) {
                        "diff-sha256"
                    } else {
                        "source-tree"
                    };
                    return Err((line, format!(
                        "`{what}` of the layer being built can only be used inside `{}/`: it is computed from the files outside it",
                        gittree::LEDGER_DIR
                    )));
                }
            }
            Placeholder::Sha256(target) => {
                if !files.contains_key(&target) {
                    return Err((
                        line,
                        format!(
                            "`sha256:{target}` names a file that does not exist in layer `{}`",
                            stage.name()
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Ids of the layers built so far, which placeholders of later layers may name.
#[derive(Debug, Default, Clone)]
pub struct Known {
    pub commits: HashMap<Stage, String>,
    pub trees: HashMap<Stage, String>,
    pub source_trees: HashMap<Stage, String>,
    /// `diff_sha256` of each layer built so far.
    pub diff_sha256s: HashMap<Stage, String>,
    /// The base layer's files by blob id, once it is built: what `diff-sha256` compares with.
    pub base_blobs: Option<Vec<(String, git2::Oid)>>,
}

impl Known {
    /// The `diff_sha256` of a layer's source files (path -> blob) against the base layer's; the
    /// base layer itself (built before `base_blobs` is known) is compared with itself.
    pub fn diff_sha256_of<'a>(
        &self,
        files: impl IntoIterator<Item = (&'a str, git2::Oid)>,
    ) -> String {
        let current: Vec<(&str, git2::Oid)> = files.into_iter().collect();
        match &self.base_blobs {
            Some(base) => gittree::diff_sha256(
                base.iter().map(|(path, oid)| (path.as_str(), *oid)),
                current.iter().copied(),
            ),
            None => gittree::diff_sha256(current.iter().copied(), current.iter().copied()),
        }
    }
}

/// How many files a chain of `sha256:` placeholders (a file naming a file that names a file...)
/// may go through: deeper chains are an error, not a stack overflow.
pub const MAX_PLACEHOLDER_DEPTH: usize = 64;

/// Fills every placeholder of a stage's files. Files in `carried` were written by an earlier layer
/// and are carried over unchanged: they keep the bytes they were given then (a receipt written in
/// `head` stays bound to head's tree when a later layer edits the code). Errors name the file.
/// Cycles and chains deeper than [`MAX_PLACEHOLDER_DEPTH`] are errors.
pub fn resolve(files: &Files, carried: &Files, known: &Known) -> Result<Files, String> {
    let mut resolver = Resolver {
        files,
        known,
        done: carried
            .iter()
            .map(|(p, c)| (p.clone(), c.clone()))
            .collect(),
        digests: HashMap::new(),
        busy: Vec::new(),
        source_tree: None,
        diff_sha256: None,
    };
    let mut out = Files::new();
    for path in files.keys() {
        resolver.file(path)?;
        // Cloned, not moved: the source tree of a later file may still need this one's bytes.
        out.insert(path.clone(), resolver.done[path.as_str()].clone());
    }
    Ok(out)
}

struct Resolver<'a> {
    files: &'a Files,
    known: &'a Known,
    /// Resolved contents (and carried files).
    done: HashMap<String, Blob>,
    /// sha256 of resolved files a `sha256:` placeholder named.
    digests: HashMap<String, String>,
    /// The files being resolved, outermost first: the chain a cycle or a too-deep chain reports.
    busy: Vec<String>,
    source_tree: Option<String>,
    diff_sha256: Option<String>,
}

const SOURCE_TREE_KEY: &str = "\0source-tree";

impl<'a> Resolver<'a> {
    /// Resolves `path` into `done`. A file without placeholders is taken as it is: its bytes are
    /// checked for the marker before they are checked for UTF-8, and its digest is computed only
    /// when a `sha256:` placeholder names it ([`Resolver::digest`]).
    fn file(&mut self, path: &str) -> Result<(), String> {
        if self.done.contains_key(path) {
            return Ok(());
        }
        let raw = self.files.get(path).ok_or_else(|| match self.busy.last() {
            Some(from) => format!("{from}: `sha256:{path}` names a file that does not exist"),
            None => format!("`{path}` does not exist"),
        })?;
        let marked = memchr::memmem::find(raw, b"{{gatebench:").is_some();
        let Some(text) = marked.then(|| std::str::from_utf8(raw).ok()).flatten() else {
            self.done.insert(path.to_owned(), raw.clone());
            return Ok(());
        };
        if self.busy.iter().any(|p| p == path) {
            return Err(format!(
                "placeholders form a cycle through `{path}`: {} -> {path}",
                self.chain()
            ));
        }
        if self.busy.len() >= MAX_PLACEHOLDER_DEPTH {
            return Err(format!(
                "`sha256:` placeholders chain through more than {MAX_PLACEHOLDER_DEPTH} files (from `{}` to `{path}`), the limit",
                self.busy[0]
            ));
        }
        self.busy.push(path.to_owned());
        let mut result = String::with_capacity(text.len());
        let mut last = 0;
        for cap in pattern().captures_iter(text) {
            let whole = cap.get(0).expect("group 0 always exists");
            let kind = cap.get(1).map_or("", |m| m.as_str());
            let arg = cap.get(2).map(|m| m.as_str());
            let placeholder = parse_one(kind, arg).map_err(|e| format!("{path}: {e}"))?;
            result.push_str(&text[last..whole.start()]);
            result.push_str(&self.value(path, &placeholder)?);
            last = whole.end();
        }
        result.push_str(&text[last..]);
        self.busy.pop();
        self.done
            .insert(path.to_owned(), result.into_bytes().into());
        Ok(())
    }

    /// The sha256 of `path` once resolved, computed once however many placeholders name it.
    fn digest(&mut self, path: &str) -> Result<String, String> {
        if let Some(digest) = self.digests.get(path) {
            return Ok(digest.clone());
        }
        // Errors from the target name their own chain of files.
        self.file(path)?;
        let digest = gittree::sha256_hex(&self.done[path]);
        self.digests.insert(path.to_owned(), digest.clone());
        Ok(digest)
    }

    fn chain(&self) -> String {
        self.busy
            .iter()
            .map(|p| {
                if p == SOURCE_TREE_KEY {
                    "the source tree"
                } else {
                    p.as_str()
                }
            })
            .collect::<Vec<_>>()
            .join(" -> ")
    }

    fn value(&mut self, path: &str, placeholder: &Placeholder) -> Result<String, String> {
        let missing = |what: &str, s: Stage| {
            format!(
                "{path}: `{what}:{}` is not known when this layer is built",
                s.name()
            )
        };
        match placeholder {
            Placeholder::Commit(s) => self
                .known
                .commits
                .get(s)
                .cloned()
                .ok_or_else(|| missing("commit", *s)),
            Placeholder::Tree(s) => self
                .known
                .trees
                .get(s)
                .cloned()
                .ok_or_else(|| missing("tree", *s)),
            Placeholder::SourceTree(Some(s)) => self
                .known
                .source_trees
                .get(s)
                .cloned()
                .ok_or_else(|| missing("source-tree", *s)),
            Placeholder::SourceTree(None) => self.current_source_tree(),
            Placeholder::DiffSha256(Some(s)) => self
                .known
                .diff_sha256s
                .get(s)
                .cloned()
                .ok_or_else(|| missing("diff-sha256", *s)),
            Placeholder::DiffSha256(None) => self.current_diff_sha256(),
            Placeholder::Sha256(target) => self.digest(target),
        }
    }

    /// Resolves every file of the source tree; their paths, sorted.
    fn source_files(&mut self) -> Result<Vec<&'a str>, String> {
        if self.busy.iter().any(|p| p == SOURCE_TREE_KEY) {
            return Err(format!(
                "placeholders form a cycle through the source tree: {}",
                self.chain()
            ));
        }
        self.busy.push(SOURCE_TREE_KEY.to_owned());
        let files = self.files;
        let mut resolved = Vec::new();
        for path in files.keys() {
            if gittree::in_source_tree(path) {
                self.file(path)?;
                resolved.push(path.as_str());
            }
        }
        self.busy.pop();
        Ok(resolved)
    }

    fn current_source_tree(&mut self) -> Result<String, String> {
        if let Some(id) = &self.source_tree {
            return Ok(id.clone());
        }
        let resolved = self.source_files()?;
        let id = gittree::tree_id(
            resolved
                .iter()
                .map(|p| (*p, self.done.get(*p).map_or(&[][..], |c| &**c))),
        )
        .to_string();
        self.source_tree = Some(id.clone());
        Ok(id)
    }

    fn current_diff_sha256(&mut self) -> Result<String, String> {
        if let Some(hash) = &self.diff_sha256 {
            return Ok(hash.clone());
        }
        let resolved = self.source_files()?;
        let current: Vec<(&str, git2::Oid)> = resolved
            .iter()
            .map(|p| {
                let content = self.done.get(*p).map_or(&[][..], |c| &**c);
                (*p, gittree::blob_id(content))
            })
            .collect();
        let hash = self.known.diff_sha256_of(current.iter().copied());
        self.diff_sha256 = Some(hash.clone());
        Ok(hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> Files {
        list.iter()
            .map(|(p, c)| (p.to_string(), Blob::from(c.as_bytes())))
            .collect()
    }

    #[test]
    fn sha256_and_source_tree_are_filled() {
        let f = files(&[
            ("src/a.py", "print(1)\n"),
            ("specs/x/log", "ok\n"),
            (
                "specs/x/r.json",
                "{{gatebench:source-tree}} {{gatebench:sha256:specs/x/log}}",
            ),
        ]);
        let out = resolve(&f, &Files::new(), &Known::default()).unwrap();
        let tree = gittree::tree_id([("src/a.py", b"print(1)\n".as_slice())]).to_string();
        let want = format!("{tree} {}", gittree::sha256_hex(b"ok\n"));
        assert_eq!(
            String::from_utf8(out["specs/x/r.json"].to_vec()).unwrap(),
            want
        );
    }

    #[test]
    fn the_source_tree_includes_files_resolved_before_it() {
        // `a.py` sorts (and is resolved) before the ledger file that takes the source tree.
        let f = files(&[
            ("a.py", "print(1)\n"),
            ("specs/x/r.json", "{{gatebench:source-tree}}"),
        ]);
        let out = resolve(&f, &Files::new(), &Known::default()).unwrap();
        let tree = gittree::tree_id([("a.py", b"print(1)\n".as_slice())]).to_string();
        assert_eq!(&*out["specs/x/r.json"], tree.as_bytes());
    }

    #[test]
    fn a_sha256_cycle_is_an_error() {
        let f = files(&[
            ("a", "{{gatebench:sha256:b}}"),
            ("b", "{{gatebench:sha256:a}}"),
        ]);
        assert!(resolve(&f, &Files::new(), &Known::default())
            .unwrap_err()
            .contains("cycle"));
    }

    #[test]
    fn a_long_sha256_chain_is_an_error_not_a_stack_overflow() {
        let mut f = Files::new();
        for i in 0..5000 {
            f.insert(
                format!("f{i}"),
                format!("{{{{gatebench:sha256:f{}}}}}", i + 1)
                    .into_bytes()
                    .into(),
            );
        }
        f.insert("f5000".into(), b"end"[..].into());
        let err = resolve(&f, &Files::new(), &Known::default()).unwrap_err();
        assert!(err.contains("more than 64 files"), "{err}");
        // A chain within the limit resolves.
        let mut short = Files::new();
        for i in 0..MAX_PLACEHOLDER_DEPTH - 1 {
            short.insert(
                format!("f{i:03}"),
                format!("{{{{gatebench:sha256:f{:03}}}}}", i + 1)
                    .into_bytes()
                    .into(),
            );
        }
        short.insert(
            format!("f{:03}", MAX_PLACEHOLDER_DEPTH - 1),
            b"end"[..].into(),
        );
        assert!(resolve(&short, &Files::new(), &Known::default()).is_ok());
    }

    #[test]
    fn many_placeholders_in_one_file_are_scanned_with_their_lines() {
        let text = "{{gatebench:source-tree}}\n".repeat(80_000);
        let found = scan(&text).unwrap();
        assert_eq!(found.len(), 80_000);
        assert_eq!(found[79_999].0, 80_000);
    }

    #[test]
    fn a_carried_file_keeps_the_bytes_of_the_layer_that_wrote_it() {
        let f = files(&[
            ("src/a.py", "edited\n"),
            ("specs/x/r.json", "{{gatebench:source-tree}}"),
        ]);
        let carried = files(&[("specs/x/r.json", "bound-to-head")]);
        let out = resolve(&f, &carried, &Known::default()).unwrap();
        assert_eq!(&*out["specs/x/r.json"], b"bound-to-head");
    }

    #[test]
    fn a_placeholder_that_names_nothing_is_an_error() {
        let err = scan("x\n{{gatebench:nothing}}\n").unwrap_err();
        assert_eq!(err.0, 2);
        assert!(err.1.contains("names nothing"), "{}", err.1);
    }

    #[test]
    fn an_unterminated_placeholder_names_its_line() {
        let err = scan("{{gatebench:sha256:a}}\nx {{gatebench:source-tree\n").unwrap_err();
        assert_eq!(err.0, 2);
        assert!(err.1.contains("unterminated"), "{}", err.1);
    }

    #[test]
    fn a_layer_cannot_name_its_own_commit() {
        let f = files(&[("specs/r", "{{gatebench:commit:head}}")]);
        let err = check_file(
            Stage::Head,
            "specs/r",
            "{{gatebench:commit:head}}",
            &f,
            &|_| true,
        )
        .unwrap_err();
        assert!(err.1.contains("only earlier layers"), "{}", err.1);
    }

    #[test]
    fn the_current_source_tree_is_only_allowed_in_the_ledger() {
        let f = files(&[("src/r", "{{gatebench:source-tree}}")]);
        assert!(check_file(
            Stage::Head,
            "src/r",
            "{{gatebench:source-tree}}",
            &f,
            &|_| true
        )
        .is_err());
    }
    #[test]
    fn diff_sha256_is_the_diff_of_the_source_files_against_the_base() {
        let base_a = gittree::blob_id(b"1\n");
        let known = Known {
            base_blobs: Some(vec![
                ("src/a.py".to_owned(), base_a),
                ("src/gone.py".to_owned(), base_a),
            ]),
            ..Known::default()
        };
        let f = files(&[
            ("src/a.py", "2\n"),
            ("specs/x/r.json", "{{gatebench:diff-sha256}}"),
        ]);
        let out = resolve(&f, &Files::new(), &known).unwrap();
        let zero = "0".repeat(40);
        let manifest = format!(
            "{base_a} {} src/a.py\n{base_a} {zero} src/gone.py\n",
            gittree::blob_id(b"2\n")
        );
        assert_eq!(
            String::from_utf8(out["specs/x/r.json"].to_vec()).unwrap(),
            format!("sha256:{}", gittree::sha256_hex(manifest.as_bytes()))
        );
        // The base layer is compared with itself: an empty diff.
        let out = resolve(&f, &Files::new(), &Known::default()).unwrap();
        assert_eq!(
            String::from_utf8(out["specs/x/r.json"].to_vec()).unwrap(),
            format!("sha256:{}", gittree::sha256_hex(b""))
        );
    }

    #[test]
    fn diff_sha256_names_earlier_layers_and_its_own_only_in_the_ledger() {
        assert!(scan("{{gatebench:diff-sha256:unstaged}}").is_err());
        let g = files(&[("specs/r", "{{gatebench:diff-sha256:head}}")]);
        assert!(check_file(
            Stage::Head,
            "specs/r",
            "{{gatebench:diff-sha256:head}}",
            &g,
            &|_| true
        )
        .is_err());
        assert!(check_file(
            Stage::Unstaged,
            "specs/r",
            "{{gatebench:diff-sha256:head}}",
            &g,
            &|_| true
        )
        .is_ok());
        let f = files(&[("src/r", "{{gatebench:diff-sha256}}")]);
        let err = check_file(
            Stage::Head,
            "src/r",
            "{{gatebench:diff-sha256}}",
            &f,
            &|_| true,
        )
        .unwrap_err();
        assert!(err.1.contains("diff-sha256"), "{}", err.1);
    }
}
