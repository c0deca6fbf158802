//! Mutation operators on one golden each: sites found, mutants built, a receipt kept bound to the
//! old log bytes when materialized, a written mutant loaded back by the fixture loader.

use crate::common;
use common::copy_dir;

use std::path::{Path, PathBuf};

use gatebench::corpus;
use gatebench::corpus::scenario::MutantSelection;
use gatebench::mutate::generate;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn select(goldens: &[&str], operators: &[&str]) -> MutantSelection {
    MutantSelection {
        goldens: goldens.iter().map(|s| s.to_string()).collect(),
        operators: operators.iter().map(|s| s.to_string()).collect(),
        ..MutantSelection::default()
    }
}

#[test]
fn every_operator_has_a_viable_mutant_on_some_golden() {
    let corpus = corpus::load(&fixtures()).expect("the bundled corpus loads");
    // The operators of each family on the golden that has their sites (not the full cross product).
    for op in generate::all() {
        let golden = match op.family.as_str() {
            "delivery" => "loop-wordcount",
            _ => "wordcount-cli",
        };
        let mutants = generate::generate(&corpus, &select(&[golden], &[op.name])).unwrap();
        let viable: Vec<_> = mutants
            .iter()
            .filter_map(|m| m.fixture.as_ref().ok())
            .collect();
        assert!(
            !viable.is_empty(),
            "{} has no viable mutant on {golden}",
            op.name
        );
        for f in viable {
            assert_eq!(f.golden.as_deref(), Some(golden));
            assert_eq!(f.expect.kind, Some(op.kind));
            assert!(!f.expect.locus.is_empty(), "{} has no locus", f.id);
            let fixes = &f.compose().unwrap().fixes;
            assert_eq!(
                fixes.len() as u32,
                fixes.last().map_or(0, |x| x.after_round)
            );
            assert!(f.id.starts_with(&format!("{golden}--{}--", op.name)));
        }
    }
}

#[test]
fn an_edited_log_no_longer_matches_the_sha256_its_receipt_keeps() {
    let corpus = corpus::load(&fixtures()).unwrap();
    let mutants = generate::generate(
        &corpus,
        &select(&["wordcount-cli"], &["edit-log-after-receipt"]),
    )
    .unwrap();
    let m = mutants
        .iter()
        .find(|m| m.site == "cli")
        .expect("the cli receipt's site");
    let f = m.fixture.as_ref().unwrap();
    let dir = tempfile::tempdir().unwrap();
    gatebench::repo::materialize::materialize(f, dir.path()).expect("materializes");
    let receipt: serde_json::Value = serde_json::from_slice(
        &std::fs::read(
            dir.path()
                .join("specs/wordcount-top/receipts/tests/cli.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let log = std::fs::read(dir.path().join("specs/wordcount-top/evidence/cli.log")).unwrap();
    let golden_trees = corpus.get("wordcount-cli").unwrap().compose().unwrap();
    let golden_log = &golden_trees.states.head["specs/wordcount-top/evidence/cli.log"];
    let recorded = receipt["log_sha256"].as_str().unwrap();
    assert_eq!(
        recorded,
        format!("sha256:{}", gatebench_gittree::sha256_hex(golden_log))
    );
    assert_ne!(
        recorded,
        format!("sha256:{}", gatebench_gittree::sha256_hex(&log))
    );
    // The fix restores the golden's log, which matches the receipt again.
    assert_eq!(
        &f.compose().unwrap().fixes[0].files["specs/wordcount-top/evidence/cli.log"],
        golden_log
    );
}

#[test]
fn written_mutants_load_back_as_the_same_fixtures() {
    let corpus = corpus::load(&fixtures()).unwrap();
    let golden = corpus.get("throttle-token-bucket").unwrap();
    let ops = [
        "drop-obligation",
        "unowned-change-staged",
        "unowned-change-untracked",
        "delete-task-state",
    ];
    let mutants = generate::generate(&corpus, &select(&[&golden.id], &ops)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixtures().join(&golden.id), &dir.path().join(&golden.id));
    let mut written = Vec::new();
    for op in ops {
        let m = mutants
            .iter()
            .find(|m| m.operator == op && m.fixture.is_ok())
            .unwrap();
        gatebench::mutate::write::write(dir.path(), golden, m.fixture.as_ref().unwrap()).unwrap();
        written.push(m);
    }
    let loaded = corpus::load(dir.path()).expect("written mutants pass the loader's checks");
    for m in written {
        let original = m.fixture.as_ref().unwrap();
        let back = loaded.get(&m.id).expect("loaded back");
        assert_eq!(back.expect.locus, original.expect.locus);
        let (back, original) = (back.compose().unwrap(), original.compose().unwrap());
        assert_eq!(back.states.head, original.states.head, "{}", m.id);
        assert_eq!(back.states.staged, original.states.staged, "{}", m.id);
        assert_eq!(back.states.unstaged, original.states.unstaged, "{}", m.id);
        assert_eq!(back.fixes.len(), original.fixes.len());
        assert_eq!(back.fixes[0].files, original.fixes[0].files, "{}", m.id);
    }
}
