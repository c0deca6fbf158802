//! Fixture file trees: repository path to content, in a persistent map whose clones share
//! structure, so that a golden, the fixtures planted in it, their layers, their fixes and the
//! mutants generated from it hold only what they change.

/// A file's content, shared by every tree that holds it unchanged.
pub type Blob = std::sync::Arc<[u8]>;

/// Repository path -> file content. Cloning is O(1); an insert or removal copies only the nodes
/// on its path (imbl's B-tree), so ten thousand fixtures over one golden do not hold ten thousand
/// copies of its tree.
pub type Files = imbl::OrdMap<String, Blob>;
