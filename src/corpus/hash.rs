//! The hash of what a fixture materializes, without its expectation: the key under which a
//! repository's results may be reused (the cache), and how a results file names a repository.

use gatebench_gittree::hex;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use sha2::{Digest, Sha256};

use crate::corpus::loader::{Files, Fixture};

/// A hash of what a fixture materializes (every layer, every scripted fix, the worktree flag),
/// without its expectation. Memoized by the fixture's content hash, which covers all of it.
pub fn repo_hash(fixture: &Fixture) -> String {
    static MEMO: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    let memo = MEMO.get_or_init(Default::default);
    if let Some(h) = memo
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
    let s = &fixture.states;
    feed("base", &s.base);
    feed("head", &s.head);
    if let Some(f) = &s.staged {
        feed("staged", f);
    }
    if let Some(f) = &s.unstaged {
        feed("unstaged", f);
    }
    for fix in &fixture.fixes {
        feed(&format!("fix after {}", fix.after_round), &fix.files);
    }
    h.update(if fixture.worktree {
        &b"worktree"[..]
    } else {
        &b"plain"[..]
    });
    let out = hex(&h.finalize());
    if let Ok(mut m) = memo.lock() {
        m.insert(fixture.content_hash.clone(), out.clone());
    }
    out
}
