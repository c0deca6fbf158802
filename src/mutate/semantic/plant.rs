//! The semantic tier planted: the candidates of the selected goldens, matched with the committed
//! validation record (`record.rs`); each `loud` or `silent` entry becomes a mutant fixture (tier
//! `semantic`, its signal, the changed lines and the obligations as its locus: those it touches
//! and, for a code change, those whose tests its run failed), every other entry an unviable mutant
//! with its status as the reason. A candidate the record does not hold, or holds with another
//! key, makes the record stale: an error that says how to refresh it.

use crate::corpus::model::fixture::LayerName;
use crate::corpus::scenario::MutantSelection;
use crate::corpus::taxonomy::{Kind, Signal, Tier};
use crate::corpus::{Corpus, Fixture};
use crate::error::{Error, Result};
use crate::mutate::ledger::{Ledger, Obligation};
use crate::mutate::mutant::{self, Mutant, Origin};
use crate::mutate::operator::Planted;
use crate::mutate::semantic::candidate::{self, Candidate, LYING_AGENT};
use crate::mutate::semantic::record::{Entry, Record, Status};
use crate::mutate::semantic::validate;

/// The category of a semantic mutant: `semantic-code`, `semantic-test`, `semantic-lying-agent`.
pub const CATEGORY_PREFIX: &str = "semantic-";

/// Every semantic mutant of the selected goldens and operators, planted or not, sorted by id.
pub fn mutants(corpus: &Corpus, selection: &MutantSelection) -> Result<Vec<Mutant>> {
    let record_path = Record::path(&corpus.dir);
    let record = Record::load(&corpus.dir)?.ok_or_else(|| {
        Error::invalid(
            &record_path,
            "the semantic tier has no validation record: run `gatebench mutate --validate`",
        )
    })?;
    let mut out = Vec::new();
    let mut stale = Vec::new();
    for golden in corpus.fixtures.iter().filter(|f| {
        f.is_golden()
            && record.goldens.contains_key(&f.id)
            && (selection.goldens.is_empty() || selection.goldens.contains(&f.id))
    }) {
        let Some(ledger) = Ledger::of(golden) else {
            continue;
        };
        // The suite the golden declares now: a changed command makes every key stale.
        let declared = golden
            .suite
            .as_ref()
            .and_then(|s| gatebench_suite::SuiteCommand::parse(&s.command).ok());
        let Some(declared) = declared else {
            stale.push(format!("{} declares no suite now", golden.id));
            continue;
        };
        let argv = &declared.argv;
        let mut candidates = candidate::candidates(&ledger);
        candidates.extend(lying_agents(&ledger, &record, &candidates));
        let held = record
            .mutants
            .iter()
            .filter(|e| e.golden == golden.id)
            .count();
        if held != candidates.len() {
            stale.push(format!(
                "{}: {} candidates, the record holds {held}",
                golden.id,
                candidates.len()
            ));
        }
        let obligations = ledger.obligations();
        for c in candidates {
            if !selection.operators.is_empty() && !selection.operators.contains(&c.operator) {
                continue;
            }
            let Some(e) = record.get(&c.id) else {
                stale.push(format!("{} is not in the record", c.id));
                continue;
            };
            if e.key != c.key(argv) {
                stale.push(format!("{} changed since it was validated", c.id));
                continue;
            }
            out.push(plant(golden, &obligations, &c, e));
        }
    }
    if let Some(first) = stale.first() {
        return Err(Error::invalid(
            record_path,
            format!(
                "is stale ({} difference(s); first: {first}): run `gatebench mutate --validate` \
                 to validate the changed candidates (unchanged ones come from the cache)",
                stale.len()
            ),
        ));
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
}

/// The lying agents the record validated, rebuilt from their code mutants and the tests that
/// killed them.
fn lying_agents(ledger: &Ledger<'_>, record: &Record, candidates: &[Candidate]) -> Vec<Candidate> {
    record
        .mutants
        .iter()
        .filter(|e| e.golden == ledger.golden.id && e.operator == LYING_AGENT)
        .filter_map(|e| {
            let code_id = e.with.as_deref()?;
            let code = candidates.iter().find(|c| c.id == code_id)?;
            let failing = &record.get(code_id)?.runs.first()?.failing;
            validate::lying_agent(ledger, code, failing)
        })
        .collect()
}

fn plant(golden: &Fixture, all: &[Obligation], c: &Candidate, e: &Entry) -> Mutant {
    let (_, _, site) = mutant::parse_id(&c.id).unwrap_or_default();
    let fixture = if e.status.planted() {
        let signal = if e.status == Status::Loud {
            Signal::Loud
        } else {
            Signal::Silent
        };
        let kind = if c.family == gatebench_lang::OperatorFamily::Test {
            Kind::TestNotVerifying
        } else {
            Kind::ObligationNotImplemented
        };
        let mut p = Planted::new(
            format!("{} ({})", c.description(), signal.as_str()),
            LayerName::Head,
        );
        for ch in &c.changes {
            if let Some(content) = c.files.get(&ch.path) {
                p.write.insert(ch.path.clone(), content.clone());
            }
            p = p.at_lines(
                &ch.path,
                [
                    u64::from(ch.mutation.lines[0]),
                    u64::from(ch.mutation.lines[1]),
                ],
            );
        }
        let mut obligations = c.obligations.clone();
        obligations.extend(broken_obligations(all, c, e));
        obligations.sort();
        obligations.dedup();
        for o in &obligations {
            p = p.at_obligation(o);
        }
        p.tier = Tier::Semantic;
        p.signal = Some(signal);
        let family = e.family.as_str();
        let origin = Origin {
            operator: &c.operator,
            category: format!("{CATEGORY_PREFIX}{family}"),
            kind,
            tags: &["semantic", signal.as_str()],
        };
        mutant::build(golden, &origin, site, &p)
    } else {
        Err(format!("{}: {}", e.status.as_str(), reason(e)))
    };
    Mutant {
        id: c.id.clone(),
        golden: golden.id.clone(),
        operator: operator_name(&c.operator),
        site: site.to_owned(),
        fixture,
    }
}

/// The obligations a code change was seen breaking: those citing a test that its run failed (a
/// loud mutant's own run; a lying agent's code mutant alone, whose failing tests it hollowed).
/// Measured, not inferred: code shared by several behaviours breaks each whose test fails, though
/// only one obligation may cite it.
fn broken_obligations(obligations: &[Obligation], c: &Candidate, e: &Entry) -> Vec<String> {
    let run = match (e.status, e.runs.first()) {
        (Status::Loud, Some(run)) if c.family == gatebench_lang::OperatorFamily::Code => run,
        (Status::Silent, Some(run)) if c.operator == LYING_AGENT => run,
        _ => return Vec::new(),
    };
    obligations
        .iter()
        .filter(|o| {
            o.test_refs.iter().any(|r| {
                candidate::test_ref(r).is_some_and(|(path, name)| {
                    run.failing
                        .iter()
                        .any(|id| validate::names_test(id, path, name))
                })
            })
        })
        .map(|o| o.id.clone())
        .collect()
}

/// Why an entry is not planted, from its last run.
fn reason(e: &Entry) -> String {
    let last = e.runs.last();
    match e.status {
        Status::Survived => "no test of the suite fails on it (equivalent, or untested)".into(),
        Status::Equivalent => "the mutated test still fails on every code mutant tried".into(),
        Status::Unproven => "no code mutant proves it".into(),
        _ => last.map_or_else(String::new, |r| {
            format!("exit {:?}, failing: {}", r.exit_code, r.failing.join(", "))
        }),
    }
}

/// The operator's name with a static lifetime, as [`Mutant`] holds it.
fn operator_name(name: &str) -> &'static str {
    if name == LYING_AGENT {
        return LYING_AGENT;
    }
    gatebench_lang::Operator::all()
        .find(|o| o.as_str() == name)
        .map_or("?", gatebench_lang::Operator::as_str)
}
