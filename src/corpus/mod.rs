//! The corpus: the fixture and scenario formats, strict YAML, placeholders, and loading the
//! fixtures into composed, in-memory file trees.

pub mod files;
pub mod fixture;
pub mod hash;
pub mod hygiene;
pub mod import;
pub mod loader;
pub mod paths;
pub mod placeholder;
pub mod scenario;
pub mod taxonomy;
pub mod yaml;

pub use loader::{load, Blob, Corpus, Files, Fixture};
