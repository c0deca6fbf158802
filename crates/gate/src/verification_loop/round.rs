//! What one round of the verification loop did: how it started, what ran, what each dimension
//! came to. The loop (`verify_loop`) produces it; the report builder (`loop_report`) renders it.

use std::collections::BTreeMap;

use crate::finding::GateFinding;
use crate::verification_loop::delivery::DeliveryOutcome;
use crate::verification_loop::dimensions::DimensionOutcome;
use crate::verification_loop::skein::SkeinOutcome;
use crate::verification_loop::state_file::{Step, VerificationState};

/// How this round came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// No state file (or the last loop passed): every dimension runs.
    Fresh,
    /// The state file holds a round that was interrupted: its pending dimensions run.
    Resumed,
    /// The last round ended with failures: the next round re-runs them.
    Next,
    /// The loop has concluded (FAIL, or an escalation): nothing runs, the verdict stands.
    Concluded,
}

/// An escalated V2 test point (docs/CONCEPTS.md#loop-escalation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escalation {
    pub points: Vec<String>,
    pub previous_iteration: u32,
    pub previous_summary: String,
    pub current_summary: String,
}

/// Everything one round did, for the report.
#[derive(Debug, Clone)]
pub struct RoundResult {
    pub start: Start,
    pub state: VerificationState,
    /// The steps this round ran, in order (`Step::Delivery` last when it ran).
    pub ran: Vec<Step>,
    pub outcomes: BTreeMap<Step, DimensionOutcome>,
    pub skein: Option<SkeinOutcome>,
    /// The V4 notes of the Loom part (validators run, findings).
    pub loom_notes: Option<String>,
    pub delivery: Option<DeliveryOutcome>,
    pub escalation: Option<Escalation>,
    /// Findings about the loop itself (limit, escalation, a state that could not be written).
    pub loop_findings: Vec<GateFinding>,
    /// What this round started from, in one line.
    pub start_note: String,
}
