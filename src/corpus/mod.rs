//! The corpus, by concern: the fixture model a run holds (`model/`), loading and checking the
//! fixtures folder (`loader/`: strict YAML, layers composed into in-memory file trees,
//! placeholders, hygiene), the scenario and pipeline specs (`scenario`), the omission taxonomy, and
//! `gatebench import` (`import/`).

pub mod import;
pub mod loader;
pub mod model;
pub mod scenario;
pub mod taxonomy;

pub use loader::compose::Composed;
pub use loader::{load, load_slim};
pub use model::corpus::{Corpus, Entry, Fixture};
pub use model::files::{Blob, Files};
pub use model::slim::Slim;
