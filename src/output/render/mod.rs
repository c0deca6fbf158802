//! What a run shows, rendered from its stored results (`store/`): the terminal summary and
//! `summary.md`, `junit.xml`, `report.html`, `compare`, `explain`, the matrix side by side; the
//! one table type and the escaping of others' text they share.

pub mod compare;
pub mod escape;
pub mod explain;
pub mod html;
pub mod junit;
pub mod matrix;
pub mod mutation_html;
pub mod mutation_summary;
pub mod reported;
pub mod summary;
pub mod table;
pub mod tiers;
