//! A run: options resolved, the selection sharded, fixtures × trials run in parallel round by
//! round, then judged; and the ways to redo one (merge shards, replay recorded reports).

pub mod baseline;
pub mod execute;
pub mod folders;
pub mod interrupt;
pub mod matrix;
pub mod memory;
pub mod merge;
pub mod options;
pub mod progress;
pub mod replay;
pub mod runner;
