//! What pipelines cost, summed per round, trial, fixture and run. A report's `cost` is optional;
//! a round that did not report one is counted as unknown, never as zero, and a sum over rounds
//! that are partly unknown says so.

use std::collections::BTreeSet;
use std::fmt::Write;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use gatebench_report::Cost;

/// One summed quantity: its total over the rounds that reported it, and how many did not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Sum<T> {
    pub total: T,
    /// Rounds (and fixer runs) that reported this quantity.
    pub known: u64,
    /// Rounds (and fixer runs) that did not: the total is a lower bound when this is above 0.
    pub unknown: u64,
}

/// Cost summed over any set of rounds and fixer runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CostTotal {
    pub tokens_in: Sum<u64>,
    pub tokens_out: Sum<u64>,
    pub usd: Sum<f64>,
    /// Every model named.
    pub models: BTreeSet<String>,
}

impl CostTotal {
    /// Adds one round's (or fixer run's) cost; `None` is unknown.
    pub fn add(&mut self, cost: Option<&Cost>) {
        fn add<T: std::ops::AddAssign>(sum: &mut Sum<T>, v: Option<T>) {
            match v {
                Some(v) => {
                    sum.total += v;
                    sum.known += 1;
                }
                None => sum.unknown += 1,
            }
        }
        add(&mut self.tokens_in, cost.and_then(|c| c.tokens_in));
        add(&mut self.tokens_out, cost.and_then(|c| c.tokens_out));
        add(&mut self.usd, cost.and_then(|c| c.usd));
        if let Some(model) = cost.and_then(|c| c.model.clone()) {
            self.models.insert(model);
        }
    }

    pub fn merge(&mut self, other: &CostTotal) {
        fn merge<T: std::ops::AddAssign + Copy>(a: &mut Sum<T>, b: &Sum<T>) {
            a.total += b.total;
            a.known += b.known;
            a.unknown += b.unknown;
        }
        merge(&mut self.tokens_in, &other.tokens_in);
        merge(&mut self.tokens_out, &other.tokens_out);
        merge(&mut self.usd, &other.usd);
        self.models.extend(other.models.iter().cloned());
    }

    /// Whether any round reported anything at all.
    pub fn any_known(&self) -> bool {
        self.tokens_in.known + self.tokens_out.known + self.usd.known > 0
    }

    /// One line: `tokens in 1200, tokens out 300, usd 0.0123 (2 of 3 runs reported usd)`, with
    /// `unknown` for a quantity no run reported.
    pub fn display(&self) -> String {
        fn show<T: std::fmt::Display>(name: &str, s: &Sum<T>, out: &mut String) {
            if !out.is_empty() {
                out.push_str(", ");
            }
            if s.known == 0 {
                let _ = write!(out, "{name} unknown");
            } else if s.unknown > 0 {
                let _ = write!(
                    out,
                    "{name} at least {} ({} of {} runs reported it)",
                    s.total,
                    s.known,
                    s.known + s.unknown
                );
            } else {
                let _ = write!(out, "{name} {}", s.total);
            }
        }
        let mut out = String::new();
        show("tokens in", &self.tokens_in, &mut out);
        show("tokens out", &self.tokens_out, &mut out);
        let usd = Sum {
            total: format!("${:.4}", self.usd.total),
            known: self.usd.known,
            unknown: self.usd.unknown,
        };
        show("cost", &usd, &mut out);
        if !self.models.is_empty() {
            let models: Vec<&str> = self.models.iter().map(String::as_str).collect();
            let _ = write!(out, ", model {}", models.join(", "));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_without_cost_makes_the_sum_a_lower_bound_not_a_zero() {
        let mut t = CostTotal::default();
        t.add(Some(&Cost {
            tokens_in: Some(100),
            tokens_out: Some(10),
            usd: None,
            model: Some("m".into()),
        }));
        t.add(None);
        assert_eq!(t.tokens_in.total, 100);
        assert_eq!(t.tokens_in.unknown, 1);
        let line = t.display();
        assert!(
            line.contains("tokens in at least 100 (1 of 2 runs"),
            "{line}"
        );
        assert!(line.contains("cost unknown"), "{line}");
    }

    #[test]
    fn nothing_reported_is_unknown() {
        let mut t = CostTotal::default();
        t.add(None);
        assert!(!t.any_known());
        assert_eq!(
            t.display(),
            "tokens in unknown, tokens out unknown, cost unknown"
        );
    }
}
