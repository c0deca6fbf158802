//! The fixture model: the `fixture.yaml` format, a loaded fixture and the corpus, file trees,
//! recipes and slim fixtures, repository paths from data, and the hash of what a fixture
//! materializes.

pub mod corpus;
pub mod files;
pub mod fixture;
pub mod hash;
pub mod paths;
pub mod recipe;
pub mod slim;
