//! gatebench: an eval harness and fixture-driven benchmark suite for verification gates.
//!
//! The map of modules, one line per file, is in `docs/ARCHITECTURE.md`.

pub mod cache;
pub mod command;
pub mod compare;
pub mod corpus;
pub mod cost;
pub mod error;
pub mod exit_code;
pub mod explain;
pub mod fingerprint;
pub mod fixture;
pub mod gate;
pub mod gittree;
pub mod html;
pub mod junit;
pub mod ledger;
pub mod legacy;
pub mod materialize;
pub mod merge;
pub mod metrics;
pub mod options;
pub mod outcome;
pub mod outputs;
pub mod paths;
pub mod pipeline;
pub mod placeholder;
pub mod process;
pub mod progress;
pub mod ratchet;
pub mod replay;
pub mod report;
pub mod report_check;
pub mod reported;
pub mod results;
pub mod run;
pub mod runner;
pub mod runs;
pub mod scenario;
pub mod schema;
pub mod shard;
pub mod summary;
pub mod trial_score;
pub mod trials;
pub mod workdir;
pub mod yaml;
