//! The hash of what a fixture materializes, without its expectation: the key under which a
//! repository's results may be reused (the cache), and how a results file names a repository.

use gatebench_gittree::hex;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use sha2::{Digest, Sha256};

use crate::corpus::loader::{Composed, Files, Fixture};
use crate::error::Error;

fn memo() -> &'static Mutex<HashMap<String, String>> {
    static MEMO: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    MEMO.get_or_init(Default::default)
}

/// A hash of what a fixture materializes (every layer, every scripted fix, the worktree flag),
/// without its expectation. Memoized by the fixture's content hash, which covers all of it; a
/// fixture not hashed yet is composed (an error when its files cannot be).
pub fn repo_hash(fixture: &Fixture) -> Result<String, Error> {
    if let Some(h) = memo()
        .lock()
        .ok()
        .and_then(|m| m.get(&fixture.content_hash).cloned())
    {
        return Ok(h);
    }
    Ok(repo_hash_of(fixture, &*fixture.compose()?))
}

/// [`repo_hash`] of `fixture` whose trees are `trees` (composed already: a trial's).
pub fn repo_hash_of(fixture: &Fixture, trees: &Composed) -> String {
    if let Some(h) = memo()
        .lock()
        .ok()
        .and_then(|m| m.get(&fixture.content_hash).cloned())
    {
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
    let out = hex(&h.finalize());
    if let Ok(mut m) = memo().lock() {
        m.insert(fixture.content_hash.clone(), out.clone());
    }
    out
}
