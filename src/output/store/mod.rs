//! What a run stores and reads back: `results.json` and its spool, the object store, the trial
//! logs, a matrix's `matrix.json`, and finding runs on disk. Nothing here renders.

pub mod matrix;
pub mod objects;
pub mod results;
pub mod runs;
pub mod spool;
pub mod trial_logs;
