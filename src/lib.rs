//! gatebench: an eval harness and fixture-driven benchmark suite for verification gates.
//!
//! The harness is grouped by stage, in the order data flows through a run: the corpus is loaded,
//! each fixture's repository is materialized, a pipeline judges it round by round, the trials are
//! scored, and the run writes its outputs. The map of modules, one line per file, is in
//! `docs/ARCHITECTURE.md`.

pub mod atomic;
pub mod corpus;
pub mod error;
pub mod exit_code;
pub(crate) mod ids;
pub mod input;
pub mod mutate;
pub mod output;
pub mod pipeline;
pub mod repo;
pub mod run;
pub mod schema;
pub mod score;
pub mod shard;
