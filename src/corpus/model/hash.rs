//! The hash of what a fixture materializes, without its expectation: the key under which a
//! repository's results may be reused (the cache), and how a results file names a repository.

use gatebench_gittree::hex;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use sha2::{Digest, Sha256};

use crate::corpus::{Composed, Files, Fixture};
use crate::error::Error;

/// The most repository hashes the memo holds: it is emptied when full. A run asks for a fixture's
/// hash while its trials run (the fixture's record, the trial, the cache key), so the few fixtures
/// in flight are all it needs; unbounded, a run of 10,000 fixtures held 10,000 (1.1 MB).
const MEMO_MAX: usize = 1024;

/// Repository hashes by content hash, both as bytes, at most [`MEMO_MAX`].
fn memo() -> &'static Mutex<HashMap<[u8; 32], [u8; 32]>> {
    static MEMO: OnceLock<Mutex<HashMap<[u8; 32], [u8; 32]>>> = OnceLock::new();
    MEMO.get_or_init(Default::default)
}

/// The memoized repository hash of `fixture`, as hex.
fn memoized(fixture: &Fixture) -> Option<String> {
    let key = key(&fixture.content_hash)?;
    memo().lock().ok()?.get(&key).map(|h| hex(h))
}

/// The content hash's bytes (`None` if it is not 64 hex digits: then nothing is memoized).
fn key(content_hash: &str) -> Option<[u8; 32]> {
    let hex = content_hash.as_bytes();
    let mut out = [0u8; 32];
    if hex.len() != 64 {
        return None;
    }
    for (i, pair) in hex.chunks(2).enumerate() {
        let digit = |b: u8| (b as char).to_digit(16);
        out[i] = (digit(pair[0])? * 16 + digit(pair[1])?) as u8;
    }
    Some(out)
}

/// A hash of what a fixture materializes (every layer, every scripted fix, the worktree flag),
/// without its expectation. Memoized by the fixture's content hash, which covers all of it; a
/// fixture not hashed yet is composed (an error when its files cannot be).
pub fn repo_hash(fixture: &Fixture) -> Result<String, Error> {
    if let Some(h) = memoized(fixture) {
        return Ok(h);
    }
    Ok(repo_hash_of(fixture, &*fixture.compose()?))
}

/// [`repo_hash`] of `fixture` whose trees are `trees` (composed already: a trial's).
pub fn repo_hash_of(fixture: &Fixture, trees: &Composed) -> String {
    if let Some(h) = memoized(fixture) {
        return h;
    }
    let mut h = Sha256::new();
    let mut feed = |label: &str, files: &Files| {
        h.update(label.as_bytes());
        h.update((files.len() as u64).to_le_bytes());
        for (path, content) in files {
            h.update((path.len() as u64).to_le_bytes());
            h.update(path.as_bytes());
            h.update((content.len() as u64).to_le_bytes());
            h.update(content);
        }
    };
    let s = &trees.states;
    feed("base", &s.base);
    feed("head", &s.head);
    if let Some(f) = &s.staged {
        feed("staged", f);
    }
    if let Some(f) = &s.unstaged {
        feed("unstaged", f);
    }
    for fix in &trees.fixes {
        feed(&format!("fix after {}", fix.after_round), &fix.files);
    }
    h.update(if fixture.worktree {
        &b"worktree"[..]
    } else {
        &b"plain"[..]
    });
    let digest: [u8; 32] = h.finalize().into();
    if let Some(key) = key(&fixture.content_hash) {
        remember(key, digest);
    }
    hex(&digest)
}

/// Adds a repository hash to the memo, emptying it first when it is full.
fn remember(key: [u8; 32], digest: [u8; 32]) {
    if let Ok(mut m) = memo().lock() {
        if m.len() >= MEMO_MAX {
            m.clear();
        }
        m.insert(key, digest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_content_hash_is_memoized_by_its_bytes_and_anything_else_is_not() {
        let bytes: [u8; 32] = Sha256::digest(b"x").into();
        assert_eq!(key(&hex(&bytes)), Some(bytes));
        assert_eq!(key(&hex(&bytes).to_uppercase()), Some(bytes));
        for bad in ["", "ab", &"g".repeat(64), &"a".repeat(66), &"é".repeat(32)] {
            assert_eq!(key(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_memo_never_holds_more_than_its_bound() {
        for i in 0..MEMO_MAX as u32 + 100 {
            let key: [u8; 32] = Sha256::digest(i.to_le_bytes()).into();
            remember(key, key);
            assert!(memo().lock().unwrap().len() <= MEMO_MAX);
        }
    }
}
