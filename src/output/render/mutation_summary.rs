//! The mutation section of the terminal summary and of `summary.md`, rendered from the run's
//! `MutationScore`: the score, survivors first, the operators below 1.0, unviable mutants, the
//! loop, and (Markdown) the tables per operator, kind and golden.

use std::fmt::Write;

use crate::output::render::table::Table;
use crate::score::mutation::{MutantLoop, MutationScore, Unviable};
use crate::score::rate::Rate;

fn pct(r: &Rate) -> String {
    format!(
        "{}/{} = {:.3} [{:.3}, {:.3}]",
        r.numerator,
        r.denominator,
        r.value.unwrap_or(0.0),
        r.low,
        r.high
    )
}

/// A mean with `digits` decimals, or `n/a`.
pub fn mean(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.digits$}"))
}

/// One line on the loop of a set of mutant trials: rounds against expectation, and cost.
pub fn loop_line(l: &MutantLoop) -> String {
    format!(
        "{}/{} in the expected round, {} reached PASS (mean first-PASS round {}), {} rounds run; \
         {} ms over {} trials ({} ms per trial)",
        l.as_expected,
        l.trials,
        l.converged,
        mean(l.mean_rounds, 2),
        l.rounds_run,
        l.total_ms,
        l.all_trials,
        mean(l.mean_ms, 0)
    )
}

/// The unviable mutants in one line (`None`: not recorded).
pub fn unviable_line(u: Option<&Unviable>) -> String {
    match u {
        None => "Unviable mutants: not recorded by this run".to_owned(),
        Some(u) if u.count == 0 => "Unviable mutants (not run): 0".to_owned(),
        Some(u) => format!(
            "Unviable mutants (not run): {} ({})",
            u.count,
            u.per_operator
                .iter()
                .map(|(op, o)| format!("{op} {}", o.count))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The mutation section of the terminal summary: score, survivors first, then the operators below
/// 1.0, unviable mutants, the loop (overall, operators off their expected round, the costliest).
pub fn summary_lines(m: &MutationScore) -> Vec<String> {
    let mut out = vec![format!("Mutation score: {}", pct(&m.score))];
    out.push(format!(
        "Survivors (passed by the pipeline): {}",
        m.survivors.len()
    ));
    out.extend(m.survivors.iter().map(|s| format!("  - {s}")));
    if !m.wrong_reason.is_empty() {
        out.push(format!(
            "Not localized (wrong reason): {}",
            m.wrong_reason.len()
        ));
        out.extend(m.wrong_reason.iter().map(|s| format!("  - {s}")));
    }
    if m.errors > 0 {
        out.push(format!("Mutant trials without an answer: {}", m.errors));
    }
    for (name, group) in [("operator", &m.per_operator), ("golden", &m.per_golden)] {
        let below: Vec<String> = group
            .iter()
            .filter(|(_, r)| r.numerator < r.denominator)
            .map(|(k, r)| format!("  - {k}: {}", pct(r)))
            .collect();
        out.push(format!(
            "Per {name}: {} of {} at 1.0{}",
            group.len() - below.len(),
            group.len(),
            if below.is_empty() { "" } else { "; below:" }
        ));
        out.extend(below);
    }
    out.push(unviable_line(m.unviable.as_ref()));
    out.push(format!("Loop: {}", loop_line(&m.convergence)));
    let off: Vec<String> = m
        .per_operator_convergence
        .iter()
        .filter(|(_, l)| l.as_expected < l.trials)
        .map(|(k, l)| {
            format!(
                "  - {k}: {}/{} in the expected round",
                l.as_expected, l.trials
            )
        })
        .collect();
    if !off.is_empty() {
        out.push(format!("Operators off their expected round: {}", off.len()));
        out.extend(off);
    }
    let mut costliest: Vec<(&String, &MutantLoop)> = m.per_operator_convergence.iter().collect();
    costliest.sort_by(|a, b| {
        b.1.mean_ms
            .unwrap_or(0.0)
            .total_cmp(&a.1.mean_ms.unwrap_or(0.0))
            .then(a.0.cmp(b.0))
    });
    if costliest.len() > 1 {
        out.push(format!(
            "Costliest operators (mean ms per trial): {}",
            costliest
                .iter()
                .take(3)
                .map(|(k, l)| format!("{k} {}", mean(l.mean_ms, 0)))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    out
}

/// Per operator: score, loop, cost and unviable mutants; operators whose every mutant was
/// unviable last, with no score.
fn operator_table(m: &MutationScore) -> Table {
    let mut table = Table::new([
        "operator",
        "score [95% CI]",
        "in expected round",
        "mean rounds",
        "total ms",
        "mean ms",
        "unviable",
    ]);
    let empty = MutantLoop::default();
    for (op, r) in &m.per_operator {
        let l = m.per_operator_convergence.get(op).unwrap_or(&empty);
        let unviable = m.unviable.as_ref().map_or_else(
            || "n/a".to_owned(),
            |u| u.per_operator.get(op).map_or(0, |o| o.count).to_string(),
        );
        table.push([
            format!("`{op}`"),
            pct(r),
            format!("{}/{}", l.as_expected, l.trials),
            mean(l.mean_rounds, 2),
            l.total_ms.to_string(),
            mean(l.mean_ms, 0),
            unviable,
        ]);
    }
    if let Some(u) = &m.unviable {
        for (op, o) in u
            .per_operator
            .iter()
            .filter(|(op, _)| !m.per_operator.contains_key(*op))
        {
            table.push([
                format!("`{op}`"),
                "n/a".into(),
                "0/0".into(),
                "n/a".into(),
                "0".into(),
                "n/a".into(),
                o.count.to_string(),
            ]);
        }
    }
    table
}

/// The mutation section of `summary.md`: the score, survivors first, then one table per operator
/// (score, loop, cost, unviable), per kind and per golden.
pub fn markdown(m: &MutationScore) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Mutation score: **{}** (Wilson 95%)\n", pct(&m.score));
    let _ = writeln!(out, "### Survivors ({})\n", m.survivors.len());
    if m.survivors.is_empty() {
        let _ = writeln!(out, "None: the pipeline passed no mutant.\n");
    } else {
        for s in &m.survivors {
            let _ = writeln!(out, "- `{s}`");
        }
        let _ = writeln!(
            out,
            "\n`gatebench explain MUTANT` shows what each one changed.\n"
        );
    }
    if !m.wrong_reason.is_empty() {
        let _ = writeln!(
            out,
            "### Not localized (wrong reason, {})\n",
            m.wrong_reason.len()
        );
        for s in &m.wrong_reason {
            let _ = writeln!(out, "- `{s}`");
        }
        out.push('\n');
    }
    if m.errors > 0 {
        let _ = writeln!(
            out,
            "Mutant trials without an answer (not in the score): {}\n",
            m.errors
        );
    }
    let _ = writeln!(out, "{}\n", unviable_line(m.unviable.as_ref()));
    let _ = writeln!(out, "Loop: {}\n", loop_line(&m.convergence));
    let _ = writeln!(out, "### Per operator\n");
    out.push_str(&operator_table(m).markdown());
    if let Some(u) = m.unviable.as_ref().filter(|u| u.count > 0) {
        let _ = writeln!(out, "\nWhy mutants were unviable:\n");
        for (op, o) in &u.per_operator {
            for r in &o.reasons {
                let _ = writeln!(out, "- `{op}`: {} (`{}`)", r.reason, r.mutant);
            }
        }
    }
    for (name, group) in [("kind", &m.per_kind), ("golden", &m.per_golden)] {
        let _ = writeln!(out, "\n### Per {name}\n");
        let mut table = Table::new([name, "score [95% CI]"]);
        for (k, r) in group {
            table.push([format!("`{k}`"), pct(r)]);
        }
        out.push_str(&table.markdown());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unviable_mutants_are_named_per_operator_or_not_recorded() {
        let u = Unviable::of([
            ("g--edit-approved-artifact--a", "equivalent"),
            ("g--edit-approved-artifact--b", "equivalent"),
            ("h--edit-approved-artifact--a", "does not parse"),
            ("g--unowned-change-staged--x", "equivalent"),
        ]);
        assert!(unviable_line(Some(&u)).contains("edit-approved-artifact 3"));
        assert_eq!(
            unviable_line(None),
            "Unviable mutants: not recorded by this run"
        );
    }
}
