//! Scoring, bottom up: a trial's record and outcome, per-fixture repetition, rates with intervals,
//! metrics and thresholds, changes between runs and the ratchet. Imports run one way: `record`
//! and `outcome` at the bottom, `ratchet` at the top.

pub mod changes;
pub mod cost;
pub mod locus;
pub mod metrics;
pub mod mutation;
pub mod outcome;
pub mod ratchet;
pub mod rate;
pub mod record;
pub mod trial_score;
pub mod trials;
pub mod typing;
