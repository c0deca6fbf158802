//! Goldens x operators -> mutants: every operator's sites in every selected golden, each built into
//! a fixture or counted as unviable; and composing the viable ones into a loaded corpus.

use crate::corpus::model::corpus::UnviableMutant;
use crate::corpus::scenario::{MutantSelection, Selection};
use crate::corpus::taxonomy::Tier;
use crate::corpus::{Corpus, Fixture};
use crate::error::{Error, Result};
use crate::mutate::ledger::Ledger;
use crate::mutate::mutant::{self, Mutant};
use crate::mutate::operator::{site_id, Operator};
use crate::mutate::operators;
use crate::score::mutation::Unviable;

/// Every operator, by family.
pub fn all() -> Vec<Operator> {
    let mut out = operators::ledger::operators();
    out.extend(operators::tasks::operators());
    out.extend(operators::refs::operators());
    out.extend(operators::evidence::operators());
    out.extend(operators::approvals::operators());
    out.extend(operators::ownership::operators());
    out.extend(operators::code::operators());
    out.extend(operators::reviews::operators());
    out.extend(operators::convergence::operators());
    out.extend(operators::delivery::operators());
    out
}

/// Every mutant of the selected goldens by the selected operators, viable or not, sorted by id.
/// An unknown golden or operator name is an error.
pub fn generate(corpus: &Corpus, selection: &MutantSelection) -> Result<Vec<Mutant>> {
    if selection.tier == Tier::Semantic {
        check_semantic_selection(corpus, selection)?;
        return crate::mutate::semantic::plant::mutants(corpus, selection);
    }
    let operators = all();
    for name in &selection.operators {
        if !operators.iter().any(|o| o.name == name) {
            return Err(Error::invalid(
                "--operators",
                format!("no mutation operator is named `{name}` (see docs/MUTATION.md)"),
            ));
        }
    }
    for name in &selection.goldens {
        if !corpus.get(name).is_some_and(Fixture::is_golden) {
            return Err(Error::invalid(
                "--goldens",
                format!("`{name}` is not a golden of the corpus"),
            ));
        }
    }
    let goldens = corpus.fixtures.iter().filter(|f| {
        f.is_golden() && (selection.goldens.is_empty() || selection.goldens.contains(&f.id))
    });
    let mut out = Vec::new();
    for golden in goldens {
        let Some(ledger) = Ledger::of(golden) else {
            continue;
        };
        for op in operators.iter().filter(|o| {
            selection.operators.is_empty() || selection.operators.iter().any(|n| n == o.name)
        }) {
            let mut seen = std::collections::BTreeSet::new();
            for site in (op.sites)(&ledger) {
                let mut id = site_id(&[&site.id]);
                if id.is_empty() {
                    id = "site".into();
                }
                // Two sites that sanitize to the same id are told apart by their order.
                let mut n = 2;
                let base = id.clone();
                while !seen.insert(id.clone()) {
                    id = format!("{base}-{n}");
                    n += 1;
                }
                let fixture = site
                    .planted
                    .and_then(|p| mutant::build(golden, &mutant::Origin::of(op), &id, &p));
                out.push(Mutant {
                    id: mutant::mutant_id(&golden.id, op.name, &id),
                    golden: golden.id.clone(),
                    operator: op.name,
                    site: id,
                    fixture,
                });
            }
        }
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
}

/// The names of a semantic selection checked: the operators are `gatebench-lang`'s or the lying
/// agent, the goldens are goldens.
fn check_semantic_selection(corpus: &Corpus, selection: &MutantSelection) -> Result<()> {
    use crate::mutate::semantic::candidate::LYING_AGENT;
    for name in &selection.operators {
        if name != LYING_AGENT && name.parse::<gatebench_lang::Operator>().is_err() {
            return Err(Error::invalid(
                "--operators",
                format!("no semantic operator is named `{name}` (see docs/MUTATION.md)"),
            ));
        }
    }
    for name in &selection.goldens {
        if !corpus.get(name).is_some_and(Fixture::is_golden) {
            return Err(Error::invalid(
                "--goldens",
                format!("`{name}` is not a golden of the corpus"),
            ));
        }
    }
    Ok(())
}

/// The category of a mutant that is not a fixture: its operator's family.
fn unviable_category(m: &Mutant, operators: &[Operator]) -> String {
    use crate::mutate::semantic::candidate::LYING_AGENT;
    use crate::mutate::semantic::plant::CATEGORY_PREFIX as SEMANTIC;
    if m.operator == LYING_AGENT {
        return format!("{SEMANTIC}{LYING_AGENT}");
    }
    if let Ok(op) = m.operator.parse::<gatebench_lang::Operator>() {
        return format!("{SEMANTIC}{}", <&str>::from(op.family()));
    }
    let family = operators
        .iter()
        .find(|o| o.name == m.operator)
        .map_or("?", |o| o.family.as_str());
    format!("{}{family}", mutant::CATEGORY_PREFIX)
}

/// The corpus with the viable mutants of `selection` added (sorted by id) and the unviable ones
/// recorded in `unviable_mutants`; and the number of unviable ones.
pub fn compose(mut corpus: Corpus, selection: &MutantSelection) -> Result<(Corpus, usize)> {
    let mutants = generate(&corpus, selection)?;
    let operators = all();
    let mut unviable = Vec::new();
    for m in mutants {
        let category = unviable_category(&m, &operators);
        match m.fixture {
            Ok(f) => corpus.fixtures.push(f),
            Err(reason) => {
                unviable.push(UnviableMutant {
                    category,
                    tags: vec!["mutant".into(), m.operator.into()],
                    id: m.id,
                    reason,
                });
            }
        }
    }
    corpus.fixtures.sort_by(|a, b| a.id.cmp(&b.id));
    let count = unviable.len();
    corpus.unviable_mutants.extend(unviable);
    corpus.unviable_mutants.sort_by(|a, b| a.id.cmp(&b.id));
    Ok((corpus, count))
}

/// The unviable mutants of `corpus` that `selection` and `filters` pick, as a run records them.
pub fn unviable_selected(
    corpus: &Corpus,
    selection: &Selection,
    filters: &[String],
) -> Result<Unviable> {
    let picks = crate::corpus::scenario::picker(selection, filters)?;
    Ok(Unviable::of(
        corpus
            .unviable_mutants
            .iter()
            .filter(|u| picks(&u.id, &u.tags, &u.category))
            .map(|u| (u.id.as_str(), u.reason.as_str())),
    ))
}

/// The corpus with the mutant `id` added when `id` names a viable mutant that the corpus does not
/// hold (for `explain`); the corpus unchanged otherwise.
pub fn with_mutant(corpus: Corpus, id: &str) -> Corpus {
    let Some((golden, operator, _)) = mutant::parse_id(id) else {
        return corpus;
    };
    if corpus.get(id).is_some() || !corpus.get(golden).is_some_and(Fixture::is_golden) {
        return corpus;
    }
    // A semantic operator's name says the tier (`with_mutant` serves `explain`).
    let tier = if operator == crate::mutate::semantic::candidate::LYING_AGENT
        || operator.parse::<gatebench_lang::Operator>().is_ok()
    {
        Tier::Semantic
    } else {
        Tier::Ledger
    };
    let selection = MutantSelection {
        goldens: vec![golden.to_owned()],
        operators: vec![operator.to_owned()],
        tier,
    };
    let Ok(mutants) = generate(&corpus, &selection) else {
        return corpus;
    };
    let mut corpus = corpus;
    if let Some(f) = mutants
        .into_iter()
        .find(|m| m.id == id)
        .and_then(|m| m.fixture.ok())
    {
        corpus.fixtures.push(f);
        corpus.fixtures.sort_by(|a, b| a.id.cmp(&b.id));
    }
    corpus
}
