//! A mutant: one operator applied at one site of one golden, turned into an ordinary `Fixture`
//! (id `<golden>--<operator>--<site>`), with its scripted fix and its viability.

use sha2::{Digest, Sha256};

use crate::corpus::model::fixture::ExpectedRounds;
use std::sync::Arc;

use crate::corpus::loader::compose::PlantInto;
use crate::corpus::loader::compose::{Composed, FixState, States};
use crate::corpus::model::corpus::Expectation;
use crate::corpus::model::recipe::Layers;
use crate::corpus::taxonomy::Kind;
use crate::corpus::{Blob, Files, Fixture};
use crate::mutate::operator::{Operator, Planted};
use gatebench_report::Verdict;

/// Separates golden, operator and site in a mutant id; no golden or operator name contains it.
pub const SEPARATOR: &str = "--";

/// The category prefix of every mutant (`mutant-<family>`).
pub const CATEGORY_PREFIX: &str = "mutant-";

/// One generated mutant, viable or not.
pub struct Mutant {
    pub id: String,
    pub golden: String,
    pub operator: &'static str,
    pub site: String,
    /// The fixture, or why the mutant is unviable (not run, counted).
    pub fixture: Result<Fixture, String>,
}

/// The id of a mutant.
pub fn mutant_id(golden: &str, operator: &str, site: &str) -> String {
    format!("{golden}{SEPARATOR}{operator}{SEPARATOR}{site}")
}

/// (golden, operator, site) of a mutant id, or `None` for an id that is not one.
pub fn parse_id(id: &str) -> Option<(&str, &str, &str)> {
    let mut parts = id.splitn(3, SEPARATOR);
    let golden = parts.next()?;
    let operator = parts.next()?;
    let site = parts.next()?;
    (!golden.is_empty() && !operator.is_empty() && !site.is_empty())
        .then_some((golden, operator, site))
}

/// What made a mutant: the operator's name, its category (`mutant-<family>`, `semantic-<family>`)
/// and the kind of omission it plants.
pub struct Origin<'a> {
    pub operator: &'a str,
    pub category: String,
    pub kind: Kind,
    /// Tags beside `mutant` and the operator's name.
    pub tags: &'a [&'a str],
}

impl Origin<'static> {
    /// The origin of a ledger operator's mutants.
    pub fn of(op: &Operator) -> Origin<'static> {
        Origin {
            operator: op.name,
            category: format!("{CATEGORY_PREFIX}{}", op.family.as_str()),
            kind: op.kind,
            tags: &[],
        }
    }
}

/// Builds the mutant of `origin` at `site` of `golden`.
pub fn build(
    golden: &Fixture,
    origin: &Origin<'_>,
    site: &str,
    planted: &Planted,
) -> Result<Fixture, String> {
    if planted.write.is_empty() && planted.delete.is_empty() {
        return Err("the operator changes nothing at this site".into());
    }
    let trees = golden
        .in_memory()
        .ok_or("the golden's trees are not in memory")?;
    let apply = |mut files: Files| -> Result<Files, String> {
        files.extend(planted.write.clone());
        for path in &planted.delete {
            if files.remove(path).is_none() {
                return Err(format!("{path} is deleted but does not exist"));
            }
        }
        Ok(files)
    };
    let states = trees
        .states
        .plant_into(planted.into, apply)
        .map_err(|e| match e {
            PlantInto::HeadUnderLaterLayers => {
                "the golden has staged or unstaged layers; head cannot be mutated".to_owned()
            }
            PlantInto::StagedUnderUnstaged => "the golden has an unstaged layer".to_owned(),
            PlantInto::Apply(e) => e,
        })?;
    if layer_trees(&states) == layer_trees(&trees.states) {
        return Err("equivalent: the mutant's trees equal the golden's".into());
    }
    let mutated = states.final_files().clone();
    let fix_trees = match &planted.fixes {
        Some(fixes) => fixes.clone(),
        None => vec![trees.final_files().clone()],
    };
    let mut previous = mutated;
    let mut fixes = Vec::new();
    for (i, files) in fix_trees.into_iter().enumerate() {
        let files = rebind(files, &previous);
        previous = files.clone();
        fixes.push(FixState {
            after_round: i as u32 + 1,
            files,
        });
    }
    let id = mutant_id(&golden.id, origin.operator, site);
    let mut hasher = Sha256::new();
    hasher.update(golden.content_hash.as_bytes());
    hasher.update(id.as_bytes());
    hasher.update(format!("{:?}", planted.locus).as_bytes());
    for (path, content) in planted
        .write
        .iter()
        .chain(fixes.iter().flat_map(|f| f.files.iter()))
    {
        hasher.update((path.len() as u64).to_le_bytes());
        hasher.update(path.as_bytes());
        hasher.update((content.len() as u64).to_le_bytes());
        hasher.update(content);
    }
    for path in &planted.delete {
        hasher.update(path.as_bytes());
    }
    // Hashed only when not the default, as a fixture file leaves them out: a ledger mutant's hash
    // is what it was before tiers.
    if !planted.tier.is_ledger() || planted.signal.is_some() {
        hasher.update(format!("tier {:?} signal {:?}", planted.tier, planted.signal).as_bytes());
    }
    let content_hash = gatebench_gittree::hex(&hasher.finalize());
    Ok(Fixture {
        id,
        description: planted.description.clone(),
        category: origin.category.clone(),
        tags: ["mutant", origin.operator]
            .iter()
            .chain(origin.tags)
            .map(|t| (*t).to_owned())
            .collect(),
        golden: Some(golden.id.clone()),
        file: golden.file.clone(),
        worktree: golden.worktree,
        layers: Layers::Composed(Arc::new(Composed { states, fixes })),
        expect: Expectation {
            verdict: Verdict::Fail,
            kind: Some(origin.kind),
            locus: planted.locus.clone(),
            findings: Vec::new(),
            rounds: Some(planted.rounds.unwrap_or(ExpectedRounds::After(2))),
        },
        tier: planted.tier,
        signal: planted.signal,
        suite: None,
        content_hash,
    })
}

/// A fix's tree, with every file that carries a placeholder and that the fix would carry over
/// unchanged written again (one more trailing newline): a file carried over keeps the bytes filled
/// in an earlier layer (docs/FIXTURES.md), and a fix must re-bind its receipts to the fixed tree, as
/// an agent re-running its checks after the fix would.
fn rebind(mut files: Files, previous: &Files) -> Files {
    let rebound: Vec<(String, Blob)> = files
        .iter()
        .filter(|(path, content)| {
            previous.get(*path) == Some(*content)
                && content.windows(12).any(|w| w == b"{{gatebench:")
        })
        .map(|(path, content)| {
            let mut again = content.to_vec();
            again.push(b'\n');
            (path.clone(), again.into())
        })
        .collect();
    files.extend(rebound);
    files
}

/// The tree ids of the composed layers (head, staged, unstaged; a layer a fixture lacks is the one
/// before it), as git would give them: equal ids are equal repositories.
fn layer_trees(states: &States) -> [git2::Oid; 3] {
    let tree = |f: &Files| gatebench_gittree::tree_id(f.iter().map(|(p, c)| (p.as_str(), &**c)));
    let head = tree(&states.head);
    let staged = states.staged.as_ref().map_or(head, tree);
    let unstaged = states.unstaged.as_ref().map_or(staged, tree);
    [head, staged, unstaged]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mutant the builder is told is semantic carries its tier and signal, hashes apart from
    /// the same change as a ledger mutant, and is written as a fixture that loads back with them.
    #[test]
    fn a_semantic_mutant_carries_its_tier_and_signal_into_its_fixture_file() {
        use crate::corpus::taxonomy::{Signal, Tier};
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let corpus = crate::corpus::load(&root.join("fixtures")).unwrap();
        let golden = corpus.get("subscription-cancel").unwrap();
        let op = &Origin::of(&crate::mutate::generate::all()[0]);
        let code = "MAX_ATTEMPTS = 1\n";
        let ledger = Planted::head("retries dropped")
            .write("src/subscription/retry.py", code)
            .at_path("src/subscription/retry.py");
        let semantic = ledger.clone().semantic(Signal::Silent);
        let (l, s) = (
            build(golden, op, "site", &ledger).unwrap(),
            build(golden, op, "site", &semantic).unwrap(),
        );
        assert_eq!((l.tier, l.signal), (Tier::Ledger, None));
        assert_eq!((s.tier, s.signal), (Tier::Semantic, Some(Signal::Silent)));
        assert_ne!(l.content_hash, s.content_hash);
        let dir = tempfile::tempdir().unwrap();
        let status = std::process::Command::new("cp")
            .arg("-r")
            .arg(root.join("fixtures/subscription-cancel"))
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(status.success());
        let folder = crate::mutate::write::write(dir.path(), golden, &s).unwrap();
        let text = std::fs::read_to_string(folder.join("fixture.yaml")).unwrap();
        assert!(
            text.contains("\ntier: semantic\nsignal: silent\n"),
            "{text}"
        );
        let loaded = crate::corpus::load(dir.path()).unwrap();
        let again = loaded.get(&s.id).unwrap();
        assert_eq!(
            (again.tier, again.signal),
            (Tier::Semantic, Some(Signal::Silent))
        );
        let elsewhere = dir.path().join("ledger");
        let folder = crate::mutate::write::write(&elsewhere, golden, &l).unwrap();
        let text = std::fs::read_to_string(folder.join("fixture.yaml")).unwrap();
        assert!(
            !text.contains("tier:") && !text.contains("signal:"),
            "{text}"
        );
    }

    #[test]
    fn an_id_splits_into_golden_operator_and_site() {
        let id = mutant_id("wordcount-cli", "drop-obligation", "req-001-b01");
        assert_eq!(
            parse_id(&id),
            Some(("wordcount-cli", "drop-obligation", "req-001-b01"))
        );
        assert_eq!(parse_id("wordcount-cli-task-state-failed"), None);
    }
}
