//! A run's corpus, held slim: each omission fixture kept as a [`Slim`] (its id, what selects and
//! orders it, its golden and content hash) until its trial loads it in full from its file
//! (`Fixture::full`). A slim fixture was a whole `Fixture` (256 bytes) with its heavy fields
//! emptied, and about ten allocations: the part of a run's memory that grew with its corpus
//! (`docs/PERFORMANCE.md`, "Scale", ninth section). A `Slim` is 96 bytes and its id's
//! allocation, its category and tags shared with every fixture that has the same ones.
//!
//! The loader makes them (`Fixture::into_slim`) and makes the slim `Fixture` again from one
//! when its trial starts (`Entry::fixture`); this module knows no `Fixture`.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use crate::corpus::model::fixture::ExpectedRounds;
use crate::corpus::model::recipe::GoldenRef;
use crate::corpus::taxonomy::{Kind, Signal, Tier};
use gatebench_report::Verdict;

/// An omission fixture of a corpus loaded slim: what a run needs of it before its trial.
#[derive(Debug, Clone)]
pub struct Slim {
    pub id: Box<str>,
    /// The golden it is planted in.
    pub golden: Arc<GoldenRef>,
    pub labels: Arc<Labels>,
    pub verdict: Verdict,
    pub kind: Option<Kind>,
    pub rounds: Option<ExpectedRounds>,
    pub tier: Tier,
    pub signal: Option<Signal>,
    pub worktree: bool,
    /// sha256 of what it materializes, as checked at load (its `content_hash`, in bytes).
    pub content_hash: [u8; 32],
    /// Its `fixture.yaml` when that is not `<id>/fixture.yaml` in its golden's fixtures folder.
    pub file: Option<Box<Path>>,
}

/// A fixture's category and tags: one per distinct pair in a corpus, shared.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Labels {
    pub category: String,
    pub tags: Vec<String>,
}

/// One [`Labels`] per distinct category and tags, while a corpus is loaded.
#[derive(Debug, Default)]
pub struct Interner(BTreeSet<Arc<Labels>>);

impl Interner {
    /// The labels `category` and `tags`, shared with every fixture given the same ones.
    pub fn labels(&mut self, category: String, tags: Vec<String>) -> Arc<Labels> {
        let labels = Labels { category, tags };
        if let Some(shared) = self.0.get(&labels) {
            return shared.clone();
        }
        let labels = Arc::new(labels);
        self.0.insert(labels.clone());
        labels
    }
}

/// 64 lowercase hex digits as their 32 bytes; `None` for anything else.
pub fn unhex(hex: &str) -> Option<[u8; 32]> {
    let digits = hex.as_bytes();
    if digits.len() != 64 {
        return None;
    }
    let nibble = |b: u8| match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    };
    let mut bytes = [0u8; 32];
    for (i, pair) in digits.chunks_exact(2).enumerate() {
        bytes[i] = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_labels_are_shared() {
        let mut interner = Interner::default();
        let tags = || vec!["a".to_owned(), "b".to_owned()];
        let one = interner.labels("c".into(), tags());
        assert!(Arc::ptr_eq(&one, &interner.labels("c".into(), tags())));
        assert!(!Arc::ptr_eq(&one, &interner.labels("d".into(), tags())));
        assert!(!Arc::ptr_eq(&one, &interner.labels("c".into(), vec![])));
        assert_eq!((one.category.as_str(), &one.tags[..]), ("c", &tags()[..]));
    }

    /// What the module's documentation says a slim fixture costs (its tier and signal fit in
    /// what was padding).
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn a_slim_fixture_is_96_bytes() {
        assert_eq!(std::mem::size_of::<Slim>(), 96);
    }

    #[test]
    fn hex_digits_round_trip_and_anything_else_is_refused() {
        let bytes: [u8; 32] = std::array::from_fn(|i| (i * 37 + 5) as u8);
        let hex = gatebench_gittree::hex(&bytes);
        assert_eq!(unhex(&hex), Some(bytes));
        assert_eq!(unhex(&hex.to_uppercase()), None, "git writes lowercase");
        assert_eq!(unhex(&hex[..62]), None);
        assert_eq!(unhex(&format!("{}zz", &hex[..62])), None);
        assert_eq!(unhex(""), None);
    }
}
