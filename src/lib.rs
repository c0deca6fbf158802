//! gatebench: an eval harness and fixture-driven benchmark suite for verification gates.
//!
//! The map of modules, one line per file, is in `docs/ARCHITECTURE.md`.

pub mod corpus;
pub mod error;
pub mod exit_code;
pub mod fixture;
pub mod gate;
pub mod gittree;
pub mod ledger;
pub mod legacy;
pub mod materialize;
pub mod metrics;
pub mod options;
pub mod outcome;
pub mod paths;
pub mod pipeline;
pub mod placeholder;
pub mod report;
pub mod report_check;
pub mod results;
pub mod run;
pub mod runner;
pub mod scenario;
pub mod schema;
pub mod summary;
pub mod workdir;
pub mod yaml;
