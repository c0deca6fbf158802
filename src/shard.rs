//! Sharding a run across machines (`--shard i/n`): fixtures are assigned by a stable hash of their
//! id, so adding a fixture never moves the others, and every trial of a fixture stays on one shard.
//!
//! Sharding applies to the whole selection, goldens included: a golden is a fixture like any other
//! and goes to the shard its own id hashes to. The goldens of the selected omission fixtures are
//! still part of the selection, so the merged run scores every control exactly as an unsharded
//! run does (`run/merge.rs` checks that the shards cover one selection, with nothing missing).

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::corpus::scenario::PipelineSpec;
use crate::corpus::Entry;

/// The most shards a run may be split into (`run --shard i/n`, and what `merge` accepts): more
/// shards than fixtures is pointless, and the count sizes what merge lists. One constant for both,
/// so that `run` never writes a shard `merge` refuses.
pub const MAX_SHARDS: u32 = 4096;

/// Shard `index` of `count`, 1-based (`2/3` is the second of three).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("`{s}` is not a shard: write `i/n` with 1 <= i <= n (e.g. `2/3`)");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        if count > MAX_SHARDS {
            return Err(format!(
                "`{s}`: a run is split into at most {MAX_SHARDS} shards"
            ));
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// Whether the fixture with this id runs on this shard.
    pub fn owns(&self, id: &str) -> bool {
        shard_of(id, self.count) == self.index
    }
}

/// The 1-based shard a fixture id belongs to among `count`: the first 8 bytes of sha256(id), as a
/// big-endian integer, modulo `count`, plus one. It depends on nothing but the id and `count`.
pub fn shard_of(id: &str, count: u32) -> u32 {
    let digest = Sha256::digest(id.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    (u64::from_be_bytes(first) % u64::from(count.max(1))) as u32 + 1
}

/// What a shard records about itself in `results.json`, so that `merge` can check that the shards
/// fit together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ShardInfo {
    /// 1-based.
    pub index: u32,
    pub count: u32,
    /// How many fixtures the whole selection (every shard together) holds.
    pub selected: usize,
    /// sha256 over the sorted ids of the whole selection: shards of one run agree on it.
    pub selection_fingerprint: String,
}

/// The fixtures of `selected` that run on `shard` (all of them when there is no shard), and what
/// the shard records about itself.
pub fn split<'c>(
    selected: &[Entry<'c>],
    shard: Option<Shard>,
) -> (Vec<Entry<'c>>, Option<ShardInfo>) {
    let Some(shard) = shard else {
        return (selected.to_vec(), None);
    };
    let mut ids: Vec<&str> = selected.iter().map(|f| f.id()).collect();
    ids.sort_unstable();
    let info = ShardInfo {
        index: shard.index,
        count: shard.count,
        selected: ids.len(),
        selection_fingerprint: fingerprint(ids.iter().map(|s| s.as_bytes())),
    };
    let mine = selected
        .iter()
        .copied()
        .filter(|f| shard.owns(f.id()))
        .collect();
    (mine, Some(info))
}

/// sha256 (hex) over length-prefixed parts, so that `["ab", "c"]` and `["a", "bc"]` differ.
pub fn fingerprint<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part);
    }
    format!("{:x}", hasher.finalize())
}

/// A fingerprint of the system under test: sha256 of the scenario's pipeline spec serialized as
/// JSON. Shards run with different pipelines are not merged.
pub fn pipeline_fingerprint(spec: &PipelineSpec) -> String {
    let json = serde_json::to_vec(spec).unwrap_or_default();
    fingerprint([json.as_slice()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_is_written_one_based() {
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { index: 2, count: 3 }));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn every_id_lands_on_exactly_one_shard() {
        for id in ["a", "subscription-cancel", "x-y-z", "another-fixture"] {
            let owners: Vec<u32> = (1..=4)
                .filter(|i| {
                    Shard {
                        index: *i,
                        count: 4,
                    }
                    .owns(id)
                })
                .collect();
            assert_eq!(owners.len(), 1, "{id}: {owners:?}");
        }
    }

    #[test]
    fn the_shard_of_an_id_is_pinned_so_ci_jobs_keep_their_fixtures() {
        // sha256("a") starts ca978112ca1bbdca: 0xca978112ca1bbdca % 3 = 1, so shard 2 of 3.
        // A change of the hash would move every fixture to another CI job.
        let of = |id: &str| (shard_of(id, 3), shard_of(id, 4));
        assert_eq!(of("a"), (2, 3));
        assert_eq!(of("d"), (3, 2));
        assert_eq!(of("subscription-cancel"), (1, 2));
        assert_eq!(of("orders-migration"), (1, 3));
    }

    #[test]
    fn fingerprints_separate_their_parts() {
        assert_ne!(
            fingerprint([b"ab".as_slice(), b"c".as_slice()]),
            fingerprint([b"a".as_slice(), b"bc".as_slice()])
        );
    }
}
