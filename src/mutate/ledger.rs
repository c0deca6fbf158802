//! A golden seen through its ledger: the feature folder, requirements, obligations, tasks, receipts
//! and logs, all read from the golden's composed files (never from a list of paths), which is where
//! every operator finds its sites.

use serde_json::Value;

use crate::corpus::{Composed, Files, Fixture};

/// One golden, parsed for site discovery.
pub struct Ledger<'g> {
    pub golden: &'g Fixture,
    /// The golden's trees (a golden's are in memory).
    pub trees: &'g Composed,
    /// The golden's final files (its last layer), placeholders unresolved.
    pub files: &'g Files,
    /// The feature folder, e.g. `specs/wordcount-top`.
    pub feature: String,
    pub requirements: Value,
}

/// A behaviour obligation of the requirements ledger.
#[derive(Debug, Clone)]
pub struct Obligation {
    pub requirement: String,
    pub id: String,
    pub task_ids: Vec<String>,
    pub code_refs: Vec<String>,
    pub test_refs: Vec<String>,
    pub evidence_receipts: Vec<String>,
    pub has_test_plan: bool,
    /// Its test plan lists forbidden effects: the obligation is (also) a forbidden behaviour.
    pub forbids: bool,
}

/// A task definition (`tasks/<T>.md`) with its front matter.
#[derive(Debug, Clone)]
pub struct Task {
    pub id: String,
    pub path: String,
    pub owns: Vec<String>,
    pub obligations: Vec<String>,
}

#[derive(serde::Deserialize)]
struct FrontMatter {
    id: String,
    #[serde(default)]
    owns: Vec<String>,
    #[serde(default)]
    obligations: Vec<String>,
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

impl<'g> Ledger<'g> {
    /// The ledger of `golden`: the first `specs/<feature>/requirements.json` of its final files.
    /// `None` for a golden without one (or without trees in memory).
    pub fn of(golden: &'g Fixture) -> Option<Ledger<'g>> {
        let trees: &'g Composed = golden.in_memory()?;
        let files = trees.final_files();
        let (path, content) = files.iter().find(|(p, _)| {
            p.starts_with("specs/")
                && p.ends_with("/requirements.json")
                && p.matches('/').count() == 2
        })?;
        let requirements = serde_json::from_slice(content).ok()?;
        Some(Ledger {
            golden,
            trees,
            files,
            feature: path.trim_end_matches("/requirements.json").to_owned(),
            requirements,
        })
    }

    /// A repository path inside the feature folder.
    pub fn path(&self, rel: &str) -> String {
        format!("{}/{rel}", self.feature)
    }

    pub fn text(&self, path: &str) -> Option<&'g str> {
        self.files
            .get(path)
            .and_then(|c| std::str::from_utf8(c).ok())
    }

    pub fn json(&self, path: &str) -> Option<Value> {
        serde_json::from_slice(self.files.get(path)?).ok()
    }

    pub fn requirements_path(&self) -> String {
        self.path("requirements.json")
    }

    /// Every requirement id, in ledger order.
    pub fn requirement_ids(&self) -> Vec<String> {
        self.requirements["requirements"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["id"].as_str().map(str::to_owned))
            .collect()
    }

    /// Every obligation, in ledger order.
    pub fn obligations(&self) -> Vec<Obligation> {
        let mut out = Vec::new();
        for r in self.requirements["requirements"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let requirement = r["id"].as_str().unwrap_or_default().to_owned();
            for o in r["obligations"].as_array().into_iter().flatten() {
                out.push(Obligation {
                    requirement: requirement.clone(),
                    id: o["id"].as_str().unwrap_or_default().to_owned(),
                    task_ids: strs(&o["task_ids"]),
                    code_refs: strs(&o["code_refs"]),
                    test_refs: strs(&o["test_refs"]),
                    evidence_receipts: strs(&o["evidence_receipts"]),
                    has_test_plan: o.get("test_plan").is_some(),
                    forbids: o
                        .pointer("/test_plan/forbidden")
                        .and_then(Value::as_array)
                        .is_some_and(|f| !f.is_empty()),
                });
            }
        }
        out
    }

    /// The detail categories of requirement `id`, in key order.
    pub fn detail_categories(&self, id: &str) -> Vec<String> {
        self.requirements["requirements"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|r| r["id"] == id)
            .filter_map(|r| r["details"].as_object())
            .flat_map(|d| d.keys().cloned())
            .collect()
    }

    /// Every task definition under `tasks/`, by path.
    pub fn tasks(&self) -> Vec<Task> {
        let prefix = self.path("tasks/");
        self.files
            .iter()
            .filter(|(p, _)| p.starts_with(&prefix) && p.ends_with(".md"))
            .filter_map(|(p, c)| {
                let text = std::str::from_utf8(c).ok()?;
                let front = text.strip_prefix("---\n")?.split("\n---").next()?;
                let fm: FrontMatter = yaml_serde::from_str(front).ok()?;
                Some(Task {
                    id: fm.id,
                    path: p.clone(),
                    owns: fm.owns,
                    obligations: fm.obligations,
                })
            })
            .collect()
    }

    /// The files directly under the feature's folder `rel` (e.g. `receipts/tests`), by path.
    pub fn files_in(&self, rel: &str) -> Vec<String> {
        let prefix = self.path(&format!("{rel}/"));
        self.files
            .keys()
            .filter(|p| p.starts_with(&prefix) && !p[prefix.len()..].contains('/'))
            .cloned()
            .collect()
    }

    /// Whether some task owns `path` (an owned entry ending in `/` owns a folder).
    pub fn owned(&self, path: &str, tasks: &[Task]) -> bool {
        tasks
            .iter()
            .flat_map(|t| &t.owns)
            .any(|o| o == path || (o.ends_with('/') && path.starts_with(o.as_str())))
    }

    /// The sha256 (hex) `path` has once materialized, with every `{{gatebench:sha256:P}}`
    /// placeholder in it filled (the only placeholder a content hash of an approved or logged file
    /// depends on in the goldens). `None` when it holds another placeholder.
    pub fn resolved_sha256(&self, path: &str) -> Option<String> {
        let content = self.resolved(path, 0)?;
        Some(gatebench_gittree::sha256_hex(&content))
    }

    fn resolved(&self, path: &str, depth: u32) -> Option<Vec<u8>> {
        let content = self.files.get(path)?;
        let Ok(text) = std::str::from_utf8(content) else {
            return Some(content.to_vec());
        };
        if !text.contains("{{gatebench:") {
            return Some(content.to_vec());
        }
        if depth > 8 {
            return None;
        }
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find("{{gatebench:") {
            out.push_str(&rest[..at]);
            let tail = &rest[at + "{{gatebench:".len()..];
            let end = tail.find("}}")?;
            let target = tail[..end].strip_prefix("sha256:")?;
            out.push_str(&gatebench_gittree::sha256_hex(
                &self.resolved(target, depth + 1)?,
            ));
            rest = &tail[end + 2..];
        }
        out.push_str(rest);
        Some(out.into_bytes())
    }
}

/// The number of lines of `content`.
pub fn line_count(content: &[u8]) -> u64 {
    content.split(|b| *b == b'\n').count() as u64 - u64::from(content.ends_with(b"\n"))
}
