//! What a run leaves: `store/` keeps it (`results.json`, the source of truth, its spool and
//! objects, the trial logs, `matrix.json`, finding runs on disk); `render/` shows it (the terminal
//! summary, `summary.md`, `junit.xml`, `report.html`, `compare`, `explain`, the matrix's side by
//! side), all from the stored results; `outputs.rs` writes a run's files.

pub mod outputs;
pub mod render;
pub mod store;
