//! The check ids of the verification loop, the delivery-documents gate and skein-check, with the
//! severity and class of the findings each raises (docs/LOOP.md lists them).

use crate::build_report::Item;

/// Every check the loop adds to the reference gate's validators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LoopCheck {
    /// The `## Verification` section of `AGENTS.md` is wrong or lacks a key it needs.
    Config,
    /// The machine state file cannot be read or contradicts the configuration.
    State,
    /// A dimension's command could not start, was not found, or timed out: nothing was judged.
    Environment,
    /// V1: the build command failed or printed error lines.
    Build,
    /// V2: the test command failed, or a test point failed.
    Test,
    /// V3: the performance command failed or reported a critical issue.
    Performance,
    /// V5: the standards command failed or reported an error-level violation.
    Standards,
    /// The same V2 test point failed in two consecutive rounds (seed 000, V2 step 5).
    Escalation,
    /// A dimension still fails at the iteration limit: FAIL, a human must step in.
    Limit,
    /// A delivery document is missing, names another requirement, or the changelist misses a file.
    Delivery,
    /// skein-check: an unchecked `- [ ]` acceptance item in the PRD.
    Acceptance,
    /// skein-check: a contract of the PRD does not hold.
    Contract,
    /// skein-check: two places disagree (two definitions of one responsibility, a call that does
    /// not match the signature, two contracts that contradict each other).
    Conflict,
}

impl LoopCheck {
    pub const ALL: [LoopCheck; 13] = [
        LoopCheck::Config,
        LoopCheck::State,
        LoopCheck::Environment,
        LoopCheck::Build,
        LoopCheck::Test,
        LoopCheck::Performance,
        LoopCheck::Standards,
        LoopCheck::Escalation,
        LoopCheck::Limit,
        LoopCheck::Delivery,
        LoopCheck::Acceptance,
        LoopCheck::Contract,
        LoopCheck::Conflict,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            LoopCheck::Config => "loop-config",
            LoopCheck::State => "loop-state",
            LoopCheck::Environment => "loop-environment",
            LoopCheck::Build => "loop-build",
            LoopCheck::Test => "loop-test",
            LoopCheck::Performance => "loop-performance",
            LoopCheck::Standards => "loop-standards",
            LoopCheck::Escalation => "loop-escalation",
            LoopCheck::Limit => "loop-limit",
            LoopCheck::Delivery => "delivery-documents",
            LoopCheck::Acceptance => "skein-acceptance",
            LoopCheck::Contract => "skein-contract",
            LoopCheck::Conflict => "skein-conflict",
        }
    }

    /// 1-10, as seed 001 grades findings.
    pub fn severity(self) -> u8 {
        match self {
            LoopCheck::Config
            | LoopCheck::State
            | LoopCheck::Environment
            | LoopCheck::Build
            | LoopCheck::Test
            | LoopCheck::Escalation
            | LoopCheck::Limit
            | LoopCheck::Contract
            | LoopCheck::Conflict => 9,
            LoopCheck::Performance | LoopCheck::Delivery | LoopCheck::Acceptance => 8,
            LoopCheck::Standards => 7,
        }
    }

    /// One of seed 001's finding classes.
    pub fn class(self) -> &'static str {
        match self {
            LoopCheck::Config | LoopCheck::State | LoopCheck::Environment => "environment",
            LoopCheck::Build
            | LoopCheck::Performance
            | LoopCheck::Contract
            | LoopCheck::Conflict
            | LoopCheck::Limit => "correctness",
            LoopCheck::Test | LoopCheck::Escalation => "test-failure",
            LoopCheck::Standards => "style",
            LoopCheck::Delivery | LoopCheck::Acceptance => "plan-completeness",
        }
    }

    /// A finding of this check, without location.
    pub fn item(self, title: impl Into<String>, description: impl Into<String>) -> Item {
        Item::new(
            self.as_str(),
            self.severity(),
            self.class(),
            title,
            description,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_loop_check_id_is_distinct_from_every_validator_id() {
        let validators: Vec<&str> = crate::ValidatorId::all().map(|v| v.as_str()).collect();
        let mut seen = std::collections::BTreeSet::new();
        for check in LoopCheck::ALL {
            assert!(seen.insert(check.as_str()), "{} twice", check.as_str());
            assert!(!validators.contains(&check.as_str()), "{}", check.as_str());
            assert!((1..=10).contains(&check.severity()));
        }
    }
}
