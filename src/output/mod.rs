//! What a run leaves: `results.json` (the source of truth), and everything rendered from it:
//! the terminal summary, `summary.md`, `junit.xml`, `report.html`, `compare` and `explain`.

pub mod compare;
pub mod escape;
pub mod explain;
pub mod html;
pub mod junit;
pub mod matrix;
pub mod mutation_html;
pub mod objects;
pub mod outputs;
pub mod reported;
pub mod results;
pub mod runs;
pub mod spool;
pub mod summary;
pub mod trial_logs;
