//! The corpus: the fixture and scenario formats, strict YAML, placeholders, and loading the
//! fixtures: goldens composed into in-memory file trees, omission fixtures kept as recipes.

pub mod compose;
pub mod files;
pub mod fixture;
pub mod hash;
pub mod hygiene;
pub mod import;
pub mod loader;
pub mod paths;
pub mod placeholder;
pub mod recipe;
pub mod scenario;
pub mod slim;
pub mod taxonomy;
pub mod yaml;

pub use loader::{load, load_slim, Blob, Composed, Corpus, Entry, Files, Fixture, Slim};
